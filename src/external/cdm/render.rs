//! Renders prepared formulas as the official CDM does and reads one box per token colour
//! (`docs/cdm.md` §Rendering, §Boxes).
//!
//! The official code writes one TeX file per formula (its variant's template, `a<N>paper`
//! landscape), runs `pdflatex` (UniMERNet) or `xelatex` (OmniDocBench) in nonstop mode, turns
//! the PDF into a PNG with ImageMagick at 200 dpi, crops it to its non-white pixels plus 8,
//! and takes per colour the pixel box, widened by 1. Here many formulas of one template and
//! paper size share one TeX run, one page each, and one Ghostscript run with the arguments
//! ImageMagick 6 hands Ghostscript (`pngalpha`, 4 alpha bits, `-r200x200`), which gives the
//! same pixels as `magick`; a formula on whose page TeX reported an error is rendered again
//! alone, so that its error is its own and cannot leak into the others.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::metrics::cdm::tokens::{Prepared, Template};
use crate::metrics::cdm::Variant;

/// Changes whenever anything here changes what a render gives (it is part of the cache key).
pub const RENDERER_VERSION: &str = "cdm-render-1";

/// The pad the official `crop_image` leaves round the ink.
const PAD: i64 = 8;

/// Formulas per TeX run.
const BATCH: usize = 24;

/// Said when TeX or Ghostscript cannot be started.
const TEX_HINT: &str = "is TeX Live installed? see docs/cdm.md";

/// One formula's render: a box per token colour (`None`: no pixel of that colour), the
/// cropped image's size, and what TeX complained about while still producing the page (the
/// official code keeps such a page too).
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedBoxes {
    /// One entry per colour of [`Prepared::colors`].
    pub boxes: Vec<Option<[i32; 4]>>,
    /// Width of the cropped image.
    pub width: u32,
    /// Height of the cropped image.
    pub height: u32,
    /// TeX's error messages for this formula (empty when it rendered cleanly).
    pub tex_errors: Vec<String>,
}

/// The TeX program of a variant.
pub(crate) fn tex_program(variant: Variant) -> &'static str {
    match variant {
        Variant::OmniDocBench => "xelatex",
        Variant::UniMERNet => "pdflatex",
    }
}

/// What the variant needs and this machine lacks: its TeX, Ghostscript, and for OmniDocBench's
/// the Source Han Sans SC font (empty when CDM can render here).
pub fn missing_tools(variant: Variant) -> Vec<String> {
    let runs = |p: &str| {
        std::process::Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success())
    };
    let mut missing: Vec<String> =
        [tex_program(variant), "gs"].into_iter().filter(|p| !runs(p)).map(String::from).collect();
    if variant == Variant::OmniDocBench {
        let font = std::process::Command::new("fc-list").arg("Source Han Sans SC").output();
        if !font.is_ok_and(|o| !o.stdout.is_empty()) {
            missing.push("the Source Han Sans SC font".into());
        }
    }
    missing
}

/// The template the variant renders `p` with: OmniDocBench's `latex2bbox_color` always uses
/// its formula template (xeCJK); UniMERNet's picks tabular, CJK or formula.
fn template_of(variant: Variant, p: &Prepared) -> Template {
    match variant {
        Variant::OmniDocBench => Template::Formula,
        Variant::UniMERNet => p.template,
    }
}

/// The official template's text before the formula, for `paper`.
fn preamble(variant: Variant, template: Template, paper: u8) -> String {
    let head = "\n\\documentclass[12pt]{article}\n\\usepackage[landscape]{geometry}\n\
                \\usepackage{geometry}\n\\geometry{a<PaperSize>paper,scale=0.98}\n\
                \\pagestyle{empty}\n";
    let packages = match (variant, template) {
        (Variant::OmniDocBench, _) => {
            "\\usepackage{amsmath}\n\\usepackage{upgreek}\n\\usepackage{amssymb}\n\
             \\usepackage{xcolor}\n\\usepackage{xeCJK}\n\
             \\setCJKmainfont{Source Han Sans SC}\n\\setCJKsansfont{Source Han Sans SC}\n\
             \\setCJKmonofont{Source Han Sans SC}\n\\xeCJKsetup{CJKmath=true}\n"
        }
        (Variant::UniMERNet, Template::Tabular) => {
            "\\usepackage{booktabs}\n\\usepackage{multirow}\n\\usepackage{amssymb}\n\
             \\usepackage{upgreek}\n\\usepackage{amsmath}\n\\usepackage{xcolor}\n"
        }
        (Variant::UniMERNet, Template::Formula) => {
            "\\usepackage{booktabs}\n\\usepackage{amsmath}\n\\usepackage{upgreek}\n\
             \\usepackage{amssymb}\n\\usepackage{xcolor}\n"
        }
        (Variant::UniMERNet, Template::FormulaZh) => {
            "\\usepackage{booktabs}\n\\usepackage{amsmath}\n\\usepackage{upgreek}\n\
             \\usepackage{CJK}\n\\usepackage{amssymb}\n\\usepackage{xcolor}\n"
        }
    };
    let body = "\\begin{document}\n\\makeatletter\n\\renewcommand*{\\@textcolor}[3]{%\n  \
                \\protect\\leavevmode\n  \\begingroup\n    \\color#1{#2}#3%\n  \\endgroup\n}\n\
                \\makeatother\n";
    format!("{head}{packages}{body}").replace("<PaperSize>", &paper.to_string())
}

/// One formula's page: the official template's display, after a marker TeX writes to its
/// log with the group level and page number it starts at, so that errors can be told apart
/// by formula and a formula that leaks (an unclosed group, a spilled page) is caught.
fn page(template: Template, index: usize, body: &str) -> String {
    let display = format!("\\begin{{displaymath}}\n{body}\n\\end{{displaymath}}\n");
    let display = match template {
        Template::FormulaZh => format!("\\begin{{CJK}}{{UTF8}}{{gkai}}\n{display}\\end{{CJK}}\n"),
        _ => display,
    };
    format!("{}\n{display}\\clearpage\n", marker(index))
}

/// `\message{[cdm-formula i g p e]}`: formula `i` starts at group level `g` on page `p`
/// inside environment `e` (`document` when the formulas before it closed theirs).
fn marker(index: usize) -> String {
    format!(
        "\\message{{[cdm-formula {index} \\the\\currentgrouplevel\\space\\the\\value{{page}}\\space\\csname @currenvir\\endcsname]}}"
    )
}

/// Renders every formula; each result is that formula's alone. Formulas are grouped by
/// template and paper size, and the groups' batches run on up to `jobs` threads.
pub fn render_all(
    variant: Variant,
    formulas: &[&Prepared],
    jobs: usize,
) -> Vec<Result<RenderedBoxes, String>> {
    let mut groups: Vec<((Template, u8), Vec<usize>)> = Vec::new();
    for (i, p) in formulas.iter().enumerate() {
        let key = (template_of(variant, p), p.paper);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let mut work: Vec<((Template, u8), Vec<usize>)> = Vec::new();
    for (key, idx) in groups {
        // Even batches, at least `jobs` of them when there is enough work.
        let n_batches = idx.len().div_ceil(BATCH).max(jobs.min(idx.len()));
        let size = idx.len().div_ceil(n_batches.max(1));
        for chunk in idx.chunks(size.max(1)) {
            work.push((key, chunk.to_vec()));
        }
    }
    let mut results: Vec<Option<Result<RenderedBoxes, String>>> = vec![None; formulas.len()];
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1).min(work.len().max(1)) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(((template, paper), idx)) = work.get(k) else { break };
                let items: Vec<&Prepared> = idx.iter().map(|&i| formulas[i]).collect();
                let out = render_batch(variant, *template, *paper, &items);
                let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
                d.extend(idx.iter().copied().zip(out));
            });
        }
    });
    for (i, r) in done.into_inner().unwrap_or_else(|e| e.into_inner()) {
        results[i] = Some(r);
    }
    results.into_iter().map(|r| r.unwrap_or_else(|| Err("not rendered".into()))).collect()
}

/// Renders formulas of one template and paper size in one TeX run. Pages up to the first
/// formula TeX complained about are kept; that formula is rendered alone, the rest again as
/// a batch.
fn render_batch(
    variant: Variant,
    template: Template,
    paper: u8,
    items: &[&Prepared],
) -> Vec<Result<RenderedBoxes, String>> {
    if items.is_empty() {
        return Vec::new();
    }
    let run = match tex_run(variant, template, paper, items) {
        Ok(r) => r,
        Err(e) if items.len() == 1 => return vec![Err(e)],
        // A batch that did not run at all (a time limit): each alone.
        Err(_) => {
            return items
                .iter()
                .flat_map(|p| render_batch(variant, template, paper, &[p]))
                .collect()
        }
    };
    if items.len() == 1 {
        let pages = run.pages;
        let errors = run.errors.into_iter().flatten().collect::<Vec<_>>();
        return vec![match pages {
            0 => Err(if errors.is_empty() {
                "TeX produced no page".to_string()
            } else {
                format!("TeX: {}", errors.join("; "))
            }),
            1 => rasterize(&run.dir, 1).map(|mut v| {
                let mut b = v.remove(0);
                b.finish(&items[0].colors, errors);
                b.into_boxes()
            }),
            n => {
                Err(format!("the formula renders onto {n} pages (the official code gets no image)"))
            }
        }];
    }
    // Formula i's page is its own when it starts clean (group level 0, page i + 1) and the
    // next formula (or the end) starts clean too: then TeX's complaints between the two
    // markers are formula i's, and its page is the page it gets alone. The first formula that
    // is not so is rendered alone, and those after it again as a batch.
    let n = items.len();
    let clean = |i: usize| run.starts.get(i).copied().flatten() == Some((0, i + 1));
    let good = (0..n)
        .find(|&i| {
            !clean(i) || !(if i + 1 < n { clean(i + 1) } else { run.pages == n && run.ended })
        })
        .unwrap_or(n);
    // TeX stopped (a fatal error) and wrote no PDF: the formula it stopped in goes alone, the
    // others again as batches.
    if run.pages < good {
        let fatal = (0..n).rev().find(|&i| run.starts[i].is_some()).unwrap_or(0);
        drop(run);
        let mut out = render_batch(variant, template, paper, &items[..fatal]);
        out.extend(render_batch(variant, template, paper, &items[fatal..fatal + 1]));
        out.extend(render_batch(variant, template, paper, &items[fatal + 1..]));
        return out;
    }
    let mut out = Vec::with_capacity(n);
    if good > 0 {
        match rasterize(&run.dir, good) {
            Ok(pages) => {
                for ((p, item), errors) in pages.into_iter().zip(items).zip(&run.errors) {
                    let mut p = p;
                    p.finish(&item.colors, errors.clone());
                    out.push(Ok(p.into_boxes()));
                }
            }
            Err(e) => out.extend((0..good).map(|_| Err(e.clone()))),
        }
    }
    drop(run);
    if good < n {
        out.extend(render_batch(variant, template, paper, &items[good..good + 1]));
        out.extend(render_batch(variant, template, paper, &items[good + 1..]));
    }
    out
}

/// Where a marker said its formula starts: (group level, or -1 outside `document`; page).
type Start = Option<(i64, usize)>;

/// What one TeX run left: its folder (with `f.pdf`), pages written, per formula its errors
/// and the (group level, page) it started at, and whether the end marker was reached.
struct TexRun {
    dir: tempfile::TempDir,
    pages: usize,
    errors: Vec<Vec<String>>,
    starts: Vec<Start>,
    ended: bool,
}

fn tex_run(
    variant: Variant,
    template: Template,
    paper: u8,
    items: &[&Prepared],
) -> Result<TexRun, String> {
    let dir = tempfile::Builder::new()
        .prefix("corpus-cdm-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let mut tex = preamble(variant, template, paper);
    for (i, p) in items.iter().enumerate() {
        tex.push_str(&page(template, i, &p.body));
    }
    tex.push_str(&marker(items.len()));
    tex.push_str("\n\\end{document}\n");
    let tex_path = dir.path().join("f.tex");
    std::fs::write(&tex_path, tex).map_err(|e| format!("writing {}: {e}", tex_path.display()))?;
    let program = tex_program(variant);
    // The official limit is 30 s for one formula.
    let limit = Duration::from_secs(30 + 5 * items.len() as u64);
    let mut cmd = Command::new(program);
    cmd.args(["-interaction=nonstopmode", "f.tex"])
        .current_dir(dir.path())
        .env("TEXMFVAR", dir.path())
        // TeX wraps log lines at 79 characters, which would cut markers and messages apart.
        .env("max_print_line", "100000")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    crate::external::run(&mut cmd, limit, program, TEX_HINT)?;
    let log = std::fs::read(dir.path().join("f.log")).unwrap_or_default();
    let log = String::from_utf8_lossy(&log);
    let (errors, mut starts) = split_log(&log, items.len());
    let ended = starts.pop().flatten() == Some((0, items.len() + 1));
    let pages = pdf_pages(&log);
    Ok(TexRun { dir, pages, errors, starts, ended })
}

/// Per formula, TeX's error messages (a `! ...` line and the context line that places it,
/// without its line number, which differs between a batch and a formula alone) between its
/// marker and the next; and per marker (the formulas', then the end's) the group level and
/// page it reported.
fn split_log(log: &str, n: usize) -> (Vec<Vec<String>>, Vec<Start>) {
    let mut errors = vec![Vec::new(); n];
    let mut starts = vec![None; n + 1];
    let mut current: Option<usize> = None;
    let mut lines = log.lines().peekable();
    while let Some(line) = lines.next() {
        let mut rest = line;
        while let Some(at) = rest.find("[cdm-formula ") {
            let tail = &rest[at + 13..];
            if let Some(end) = tail.find(']') {
                let f: Vec<&str> = tail[..end].split_whitespace().collect();
                if let [i, g, p, env] = f[..] {
                    if let (Ok(i), Ok(g), Ok(p)) = (i.parse::<usize>(), g.parse::<i64>(), p.parse())
                    {
                        if i <= n && starts[i].is_none() {
                            // Outside `document` counts as unclean, like a group left open.
                            starts[i] = Some((if env == "document" { g } else { -1 }, p));
                            current = Some(i);
                        }
                    }
                }
            }
            rest = tail;
        }
        if let Some(msg) = line.strip_prefix("! ") {
            // LaTeX's "on input line N" differs between a batch and a formula alone.
            let mut text = strip_line_numbers(msg.trim());
            // The context lines end with `l.N <the line so far>`.
            for _ in 0..12 {
                match lines.peek() {
                    Some(l) if l.starts_with("l.") => {
                        let ctx = l.trim_start_matches(|c: char| {
                            c == 'l' || c == '.' || c.is_ascii_digit()
                        });
                        text.push_str(&format!(" (at {})", ctx.trim()));
                        break;
                    }
                    Some(l) if l.starts_with("! ") => break,
                    Some(_) => {
                        lines.next();
                    }
                    None => break,
                }
            }
            // Before the first marker: the preamble (a missing package or font) blames the
            // first formula; after the end marker, the last.
            let at = current.unwrap_or(0).min(n.saturating_sub(1));
            if let Some(e) = errors.get_mut(at) {
                e.push(text);
            }
        }
    }
    (errors, starts)
}

/// `text` without the numbers after "on input line ".
fn strip_line_numbers(text: &str) -> String {
    const KEY: &str = "on input line ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(KEY) {
        out.push_str(&rest[..at + KEY.len() - 1]);
        rest = rest[at + KEY.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// `Output written on f.pdf (N pages, ...)` in the log; 0 when there is none.
fn pdf_pages(log: &str) -> usize {
    let Some(at) = log.find("Output written on ") else { return 0 };
    let rest = &log[at..];
    let Some(open) = rest.find('(') else { return 0 };
    rest[open + 1..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0)
}

/// A page's pixels reduced to what the official code reads from them.
struct PageScan {
    /// Ink box over pixels whose grey (PIL's `convert("L")`) is not 255.
    ink: Option<[i64; 4]>,
    /// Per colour slot (`(R/15)·324 + (G/15)·18 + B/15`), the pixel box.
    colour_boxes: Vec<Option<[i64; 4]>>,
    boxes: Vec<Option<[i32; 4]>>,
    width: u32,
    height: u32,
    tex_errors: Vec<String>,
}

const SLOTS: usize = 18 * 18 * 18;

impl PageScan {
    fn scan(rgba: &[u8], w: usize) -> PageScan {
        let mut ink: Option<[i64; 4]> = None;
        let mut colour_boxes: Vec<Option<[i64; 4]>> = vec![None; SLOTS];
        for (k, px) in rgba.chunks_exact(4).enumerate() {
            let (r, g, b) = (px[0], px[1], px[2]);
            if r == 255 && g == 255 && b == 255 {
                continue;
            }
            let (x, y) = ((k % w) as i64, (k / w) as i64);
            // PIL's L = (R·19595 + G·38470 + B·7471 + 0x8000) >> 16.
            let l =
                (u32::from(r) * 19595 + u32::from(g) * 38470 + u32::from(b) * 7471 + 0x8000) >> 16;
            if l != 255 {
                grow(&mut ink, x, y);
            }
            if r % 15 == 0 && g % 15 == 0 && b % 15 == 0 {
                let slot =
                    usize::from(r / 15) * 324 + usize::from(g / 15) * 18 + usize::from(b / 15);
                grow(&mut colour_boxes[slot], x, y);
            }
        }
        PageScan {
            ink,
            colour_boxes,
            boxes: Vec::new(),
            width: 0,
            height: 0,
            tex_errors: Vec::new(),
        }
    }

    /// The official crop (ink ± 8, or (-8,-8)–(18,18) on a blank page) and each token
    /// colour's box in it, widened by 1.
    fn finish(&mut self, colors: &[[u8; 3]], tex_errors: Vec<String>) {
        let [x0, y0, x1, y1] = self.ink.unwrap_or([0, 0, 10, 10]);
        let (left, top) = (x0 - PAD, y0 - PAD);
        self.width = (x1 + PAD - left) as u32;
        self.height = (y1 + PAD - top) as u32;
        let (w, h) = (self.width as i64, self.height as i64);
        self.boxes = colors
            .iter()
            .map(|c| {
                if c.iter().any(|v| v % 15 != 0) {
                    return None;
                }
                let slot = usize::from(c[0] / 15) * 324
                    + usize::from(c[1] / 15) * 18
                    + usize::from(c[2] / 15);
                let [a, b, cc, d] = self.colour_boxes[slot]?;
                // Pixels outside the crop are not in the cropped image.
                let (a, b, cc, d) = (a - left, b - top, cc - left, d - top);
                let (a, b) = (a.max(0), b.max(0));
                let (cc, d) = (cc.min(w - 1), d.min(h - 1));
                if a > cc || b > d {
                    return None;
                }
                Some([(a - 1) as i32, (b - 1) as i32, (cc + 1) as i32, (d + 1) as i32])
            })
            .collect();
        self.tex_errors = tex_errors;
    }

    fn into_boxes(self) -> RenderedBoxes {
        RenderedBoxes {
            boxes: self.boxes,
            width: self.width,
            height: self.height,
            tex_errors: self.tex_errors,
        }
    }
}

fn grow(b: &mut Option<[i64; 4]>, x: i64, y: i64) {
    match b {
        None => *b = Some([x, y, x, y]),
        Some(v) => {
            v[0] = v[0].min(x);
            v[1] = v[1].min(y);
            v[2] = v[2].max(x);
            v[3] = v[3].max(y);
        }
    }
}

/// Ghostscript over the first `pages` pages of `dir/f.pdf` with ImageMagick 6's `ps:alpha`
/// delegate arguments at `-density 200`, each page scanned.
fn rasterize(dir: &tempfile::TempDir, pages: usize) -> Result<Vec<PageScan>, String> {
    let d = dir.path();
    let mut cmd = Command::new("gs");
    cmd.args([
        "-sstdout=%stderr",
        "-dQUIET",
        "-dSAFER",
        "-dBATCH",
        "-dNOPAUSE",
        "-dNOPROMPT",
        "-dMaxBitmap=500000000",
        "-dAlignToPixels=0",
        "-dGridFitTT=2",
        "-sDEVICE=pngalpha",
        "-dTextAlphaBits=4",
        "-dGraphicsAlphaBits=4",
        "-r200x200",
        "-dFirstPage=1",
    ])
    .arg(format!("-dLastPage={pages}"))
    .arg("-sOutputFile=p%d.png")
    .arg("-ff.pdf")
    .current_dir(d)
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    crate::external::run(&mut cmd, Duration::from_secs(30 + 2 * pages as u64), "gs", TEX_HINT)?;
    (1..=pages).map(|k| read_png(&d.join(format!("p{k}.png")))).collect()
}

fn read_png(path: &Path) -> Result<PageScan, String> {
    let file = std::fs::File::open(path)
        .map_err(|e| format!("Ghostscript wrote no {}: {e}", path.display()))?;
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    dec.set_transformations(png::Transformations::EXPAND);
    let mut reader = dec.read_info().map_err(|e| format!("{}: {e}", path.display()))?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("PNG too large")?];
    let info = reader.next_frame(&mut buf).map_err(|e| format!("{}: {e}", path.display()))?;
    if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
        return Err(format!("{}: expected 8-bit RGBA from pngalpha", path.display()));
    }
    Ok(PageScan::scan(&buf[..info.buffer_size()], info.width as usize))
}
