//! The Markdown documentation's links: every relative link in README.md, CONTRIBUTING.md (when
//! present), bench/README.md and docs/**/*.md names a file or folder that exists, and every
//! `#anchor` (in the same file or another Markdown file) names a heading of its target, by
//! GitHub's rule for heading ids.

use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The files checked, relative to the repository root, in a stable order.
fn checked_files() -> Vec<PathBuf> {
    let root = root();
    let mut files: Vec<PathBuf> = ["README.md", "CONTRIBUTING.md", "bench/README.md"]
        .iter()
        .map(PathBuf::from)
        .filter(|p| root.join(p).is_file())
        .collect();
    fn walk(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|x| x == "md") {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    walk(&root.join("docs"), &root, &mut files);
    files
}

/// GitHub's heading id: lowercase; letters, digits, `-` and `_` kept; each space a `-`;
/// everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// One Markdown file's headings (as ids, a repeated id numbered `-1`, `-2`, ... as GitHub
/// numbers it), explicit HTML anchors (`id="..."`, `name="..."`), and links with their lines.
struct Page {
    anchors: HashSet<String>,
    links: Vec<(usize, String)>,
}

fn read_page(text: &str) -> Page {
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut anchors = HashSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    for (event, range) in Parser::new_ext(text, Options::all()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let n = seen.entry(base.clone()).or_insert(0);
                let id = if *n == 0 { base.clone() } else { format!("{base}-{n}") };
                *n += 1;
                anchors.insert(id);
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                for attr in ["id=\"", "name=\""] {
                    for (i, _) in h.match_indices(attr) {
                        let rest = &h[i + attr.len()..];
                        if let Some(end) = rest.find('"') {
                            anchors.insert(rest[..end].to_string());
                        }
                    }
                }
            }
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => {
                links.push((line_of(range.start), dest_url.to_string()));
            }
            _ => {}
        }
    }
    Page { anchors, links }
}

/// `%20` and the like, as a browser decodes a link's path.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        if let (b'%', Some(b)) = (bytes[i], hex) {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `a/b/../c` → `a/c`, without touching the file system; `None` when it leaves the root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(p) => out.push(p),
            Component::RootDir | Component::Prefix(_) => {}
        }
    }
    Some(out)
}

/// Every problem with the links of `files` (relative to `root`), one line each.
fn broken_links(root: &Path, files: &[PathBuf]) -> Vec<String> {
    let mut pages: BTreeMap<PathBuf, Page> = BTreeMap::new();
    let mut page = |rel: &Path| -> Option<HashSet<String>> {
        if !pages.contains_key(rel) {
            let text = std::fs::read_to_string(root.join(rel)).ok()?;
            pages.insert(rel.to_path_buf(), read_page(&text));
        }
        Some(pages[rel].anchors.clone())
    };
    let mut problems = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let this = read_page(&text);
        for (line, dest) in &this.links {
            let at = format!("{}:{line}: link `{dest}`", file.display());
            // A scheme (`https:`, `mailto:`) before any `/` or `#`: not a file of this repository.
            let scheme_end = dest.find(':');
            let path_start = dest.find(['/', '#']).unwrap_or(dest.len());
            if scheme_end.is_some_and(|i| i < path_start) || dest.starts_with("//") {
                continue;
            }
            let (path, anchor) = match dest.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (dest.as_str(), None),
            };
            let path = path.split('?').next().unwrap_or_default();
            let target = if path.is_empty() {
                Some(file.to_path_buf())
            } else if let Some(from_root) = path.strip_prefix('/') {
                normalize(Path::new(&percent_decode(from_root)))
            } else {
                normalize(&file.parent().unwrap().join(percent_decode(path)))
            };
            let Some(target) = target else {
                problems.push(format!("{at}: leaves the repository"));
                continue;
            };
            let full = root.join(&target);
            if !full.exists() {
                problems.push(format!("{at}: {} does not exist", target.display()));
                continue;
            }
            let Some(anchor) = anchor.filter(|a| !a.is_empty()) else {
                continue;
            };
            if full.is_dir() || target.extension().is_none_or(|x| x != "md") {
                continue;
            }
            let anchors = page(&target).unwrap_or_default();
            if !anchors.contains(&percent_decode(anchor)) {
                problems.push(format!(
                    "{at}: {} has no heading with the id `{anchor}`",
                    target.display()
                ));
            }
        }
    }
    problems
}

#[test]
fn slugs_follow_githubs_rule() {
    assert_eq!(slug("Running on a cluster"), "running-on-a-cluster");
    assert_eq!(slug("The `layout` provider"), "the-layout-provider");
    assert_eq!(
        slug("Models behind an HTTP endpoint: the LLM judge and the openai provider"),
        "models-behind-an-http-endpoint-the-llm-judge-and-the-openai-provider"
    );
    assert_eq!(
        slug("5. The layout provider: drawn grid or model"),
        "5-the-layout-provider-drawn-grid-or-model"
    );
    assert_eq!(slug("Is the difference real?"), "is-the-difference-real");
    assert_eq!(slug("a_b - c"), "a_b---c");
    assert_eq!(slug("Übersicht (Ä)"), "übersicht-ä");
}

#[test]
fn repeated_headings_are_numbered_and_html_anchors_count() {
    let page = read_page("# A\n\n## A\n\n## A\n\n<a id=\"here\"></a>\n\n[x](#a-1) `[y](#nope)`\n");
    for id in ["a", "a-1", "a-2", "here"] {
        assert!(page.anchors.contains(id), "{id}: {:?}", page.anchors);
    }
    // Links inside code are not links.
    assert_eq!(page.links, vec![(9, "#a-1".to_string())]);
}

#[test]
fn every_relative_link_and_anchor_in_the_docs_resolves() {
    let files = checked_files();
    assert!(
        files.iter().any(|f| f.starts_with("docs/guide")),
        "no docs/guide pages found: {files:?}"
    );
    let problems = broken_links(&root(), &files);
    assert!(
        problems.is_empty(),
        "{} broken link(s) in the Markdown docs:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn broken_files_and_anchors_are_reported_and_the_rest_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("docs/guide")).unwrap();
    std::fs::write(root.join("docs/spec.md"), "# Spec\n\n## The `x` rule: one\n").unwrap();
    std::fs::write(
        root.join("docs/guide/page.md"),
        "# Page\n\n[ok](../spec.md#the-x-rule-one) [ok](#page) [ok](../../docs/) \
         [ok](https://example.org/x.md#nope) [ok](mailto:a@b.c)\n\n\
         [bad](../spec.md#the-y-rule) [bad](missing.md) [bad](#nope) [bad](../../../out.md)\n",
    )
    .unwrap();
    let problems = broken_links(root, &[PathBuf::from("docs/guide/page.md")]);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(problems[0].contains("docs/spec.md has no heading with the id `the-y-rule`"));
    assert!(problems[1].contains("docs/guide/missing.md does not exist"));
    assert!(problems[2].contains("docs/guide/page.md has no heading with the id `nope`"));
    assert!(problems[3].contains("leaves the repository"));
}
