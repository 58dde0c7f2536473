//! A [`Doc`] as one standalone HTML page (`corpus export --format html`): no script, no
//! external resource, the blocks in reading order inside one `<section>` per page, each
//! element carrying its kind (`class`) and box (`data-bbox`, PDF points from the top-left).
//! Headings are `<h2>`.. by level (the title `<h1>`), list items `<li>` in a `<ul>`, tables
//! as HTML tables with their spans, formulas as their LaTeX between `$$`, code in `<pre>`.

use crate::doc::{Block, BlockKind, Doc};

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The page, titled `title`; `source` (the provider and its version) is named in its header.
pub fn write_html_page(doc: &Doc, title: &str, source: &str) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"generator\" content=\"corpus {}\">\n<title>{}</title>\n<style>\n\
         body{{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.45}}\n\
         section.page{{border-top:1px solid #ccc;margin-top:1.5em}}\n\
         .page-no{{color:#888;font-size:.8em}}\n\
         .page_header,.page_footer,.footnote{{color:#666;font-size:.85em}}\n\
         table{{border-collapse:collapse}}td,th{{border:1px solid #aaa;padding:2px 6px}}\n\
         .formula{{font-family:monospace;margin:.5em 2em}}\n</style>\n</head>\n<body>\n\
         <header><p class=\"source\">{} — exported by corpus</p></header>\n",
        env!("CARGO_PKG_VERSION"),
        esc(title),
        esc(source)
    );
    let mut page: Option<u32> = None;
    let mut in_list = false;
    for b in &doc.blocks {
        if page != Some(b.page) {
            if in_list {
                out.push_str("</ul>\n");
                in_list = false;
            }
            if page.is_some() {
                out.push_str("</section>\n");
            }
            out.push_str(&format!(
                "<section class=\"page\" data-page=\"{0}\">\n<p class=\"page-no\">page {0}</p>\n",
                b.page + 1
            ));
            page = Some(b.page);
        }
        if (b.kind == BlockKind::ListItem) != in_list {
            out.push_str(if in_list { "</ul>\n" } else { "<ul>\n" });
            in_list = !in_list;
        }
        out.push_str(&element(b));
        out.push('\n');
    }
    if in_list {
        out.push_str("</ul>\n");
    }
    if page.is_some() {
        out.push_str("</section>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// One block as an element.
fn element(b: &Block) -> String {
    let bb = b.bbox;
    let attrs = format!(
        " class=\"{}\" data-bbox=\"{} {} {} {}\"",
        b.kind.as_str(),
        bb.x0,
        bb.y0,
        bb.x1,
        bb.y1
    );
    let text = esc(&b.text);
    match b.kind {
        BlockKind::Title => format!("<h1{attrs}>{text}</h1>"),
        BlockKind::Heading => {
            let n = (usize::from(b.level.unwrap_or(1)) + 1).min(6);
            format!("<h{n}{attrs}>{text}</h{n}>")
        }
        BlockKind::ListItem => format!("<li{attrs}>{text}</li>"),
        BlockKind::Table => match &b.table {
            Some(t) if !t.cells.is_empty() => format!("<div{attrs}>{}</div>", t.to_html()),
            _ => format!("<pre{attrs}>{text}</pre>"),
        },
        BlockKind::Formula => {
            let tex = esc(b.latex.as_deref().unwrap_or(&b.text));
            format!("<div{attrs}>$${tex}$$</div>")
        }
        BlockKind::Code => format!("<pre{attrs}><code>{text}</code></pre>"),
        BlockKind::Figure => format!("<figure{attrs}><figcaption>{text}</figcaption></figure>"),
        BlockKind::PageHeader | BlockKind::PageFooter => format!("<div{attrs}>{text}</div>"),
        BlockKind::Paragraph | BlockKind::Caption | BlockKind::Footnote | BlockKind::Reference => {
            format!("<p{attrs}>{text}</p>")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{BBox, Page};

    #[test]
    fn escapes_text_groups_lists_and_sections_pages() {
        let b = |k, p, t: &str| Block::new(k, p, BBox::new(1.0, 2.0, 3.0, 4.0), t);
        let doc = Doc {
            pages: vec![Page::default(); 2],
            blocks: vec![
                b(BlockKind::Title, 0, "A <b> & c"),
                b(BlockKind::ListItem, 0, "one"),
                b(BlockKind::ListItem, 0, "two"),
                b(BlockKind::Paragraph, 1, "x"),
            ],
            markdown: None,
            meta: None,
        };
        let h = write_html_page(&doc, "t\"", "pdfium@1");
        assert!(h.contains("<h1 class=\"title\" data-bbox=\"1 2 3 4\">A &lt;b&gt; &amp; c</h1>"));
        assert!(h.contains("<ul>\n<li class=\"list_item\" data-bbox=\"1 2 3 4\">one</li>\n<li"));
        assert_eq!(h.matches("<section").count(), 2);
        assert_eq!(h.matches("</section>").count(), 2);
        assert_eq!(h.matches("<ul>").count(), h.matches("</ul>").count());
        assert!(h.contains("<title>t&quot;</title>"));
    }
}
