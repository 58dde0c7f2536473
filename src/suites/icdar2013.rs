//! ICDAR 2013 table competition ground truth (`--truth icdar2013`): `<stem>-reg.xml` (table
//! regions per page) and `<stem>-str.xml` (cells with `start-row`, `start-col`, optional
//! `end-row`/`end-col`, and `content`) beside `<stem>.pdf`, stored as the truth parts `reg`
//! and `str`.
//!
//! Regions are in PDF coordinates with a bottom-left origin (`x1 y1 x2 y2`, y up) and 1-based
//! pages; [`Region::to_top_left`] turns them into the Doc's top-left boxes given the page
//! height. Each `<table>` of the structure file is one GT table: the cells of all its regions,
//! a region's `row-increment`/`col-increment` added to its cells' positions; text has its
//! whitespace collapsed. Detection ([`detect`]) pairs GT regions with predicted table boxes on
//! the same page one to one (Hungarian on IoU, true union as denominator) and counts a pair as
//! found when IoU ≥ 0.5.

use roxmltree::{Document, Node};

use crate::doc::{BBox, Cell, Table};

/// The IoU a predicted box needs to count as finding a GT region.
pub const MIN_IOU: f64 = 0.5;

/// One GT table region.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    /// Zero-based page.
    pub page: u32,
    /// `[x1, y1, x2, y2]` in PDF points, origin bottom-left.
    pub pdf_box: [f64; 4],
}

impl Region {
    /// The region as a top-left-origin box on a page of height `h`.
    pub fn to_top_left(&self, h: f64) -> [f64; 4] {
        let [x1, y1, x2, y2] = self.pdf_box;
        [x1.min(x2), h - y1.max(y2), x1.max(x2), h - y1.min(y2)]
    }
}

/// An ICDAR 2013 truth.
#[derive(Debug, Clone, PartialEq)]
pub struct Icdar2013 {
    /// Every table region.
    pub regions: Vec<Region>,
    /// Every table's cells.
    pub tables: Vec<Table>,
}

fn num(n: Node<'_, '_>, attr: &str) -> Result<f64, String> {
    let v = n.attribute(attr).ok_or_else(|| format!("<{}> without {attr}", n.tag_name().name()))?;
    v.trim().parse().map_err(|_| format!("{attr}={v:?} is not a number"))
}

fn int_or(n: Node<'_, '_>, attr: &str, default: i64) -> Result<i64, String> {
    match n.attribute(attr) {
        None => Ok(default),
        Some(v) => v.trim().parse().map_err(|_| format!("{attr}={v:?} is not an integer")),
    }
}

fn children<'a, 'i>(n: Node<'a, 'i>, tag: &'static str) -> impl Iterator<Item = Node<'a, 'i>> {
    n.children().filter(move |c| c.is_element() && c.tag_name().name() == tag)
}

/// Reads the region file.
pub fn read_regions(xml: &str) -> Result<Vec<Region>, String> {
    let doc = Document::parse(xml).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for t in children(doc.root_element(), "table") {
        for r in children(t, "region") {
            let page = int_or(r, "page", 1)?;
            let b = children(r, "bounding-box").next().ok_or("<region> without bounding-box")?;
            out.push(Region {
                page: (page - 1).max(0) as u32,
                pdf_box: [num(b, "x1")?, num(b, "y1")?, num(b, "x2")?, num(b, "y2")?],
            });
        }
    }
    Ok(out)
}

/// Reads the structure file: one [`Table`] per `<table>`.
pub fn read_structure(xml: &str) -> Result<Vec<Table>, String> {
    let doc = Document::parse(xml).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for t in children(doc.root_element(), "table") {
        let mut cells = Vec::new();
        for r in children(t, "region") {
            let (dr, dc) = (int_or(r, "row-increment", 0)?, int_or(r, "col-increment", 0)?);
            for c in children(r, "cell") {
                let (sr, sc) = (int_or(c, "start-row", 0)?, int_or(c, "start-col", 0)?);
                let (er, ec) = (int_or(c, "end-row", sr)?, int_or(c, "end-col", sc)?);
                let text = children(c, "content").next().and_then(|n| n.text()).unwrap_or("");
                let row = (sr + dr).max(0) as u32;
                let col = (sc + dc).max(0) as u32;
                cells.push(Cell {
                    row,
                    col,
                    row_span: (er - sr + 1).max(1) as u32,
                    col_span: (ec - sc + 1).max(1) as u32,
                    text: text.split_whitespace().collect::<Vec<_>>().join(" "),
                    header: false,
                });
            }
        }
        let rows = cells.iter().map(|c| c.row + c.row_span).max().unwrap_or(0);
        let cols = cells.iter().map(|c| c.col + c.col_span).max().unwrap_or(0);
        out.push(Table { rows, cols, cells });
    }
    Ok(out)
}

/// Reads both parts.
pub fn read_truth(reg: &[u8], structure: &[u8]) -> Result<Icdar2013, String> {
    let utf8 = |b: &[u8], what: &str| {
        std::str::from_utf8(b).map(str::to_owned).map_err(|e| format!("{what}: {e}"))
    };
    let regions = read_regions(&utf8(reg, "reg")?).map_err(|e| format!("reg: {e}"))?;
    let tables = read_structure(&utf8(structure, "str")?).map_err(|e| format!("str: {e}"))?;
    Ok(Icdar2013 { regions, tables })
}

/// Intersection over (true) union of two `[x0, y0, x1, y1]` boxes; 0 when the union is empty.
pub fn box_iou(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    let area = |r: &[f64; 4]| (r[2] - r[0]).max(0.0) * (r[3] - r[1]).max(0.0);
    let inter = area(&[a[0].max(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].min(b[3])]);
    let union = area(a) + area(b) - inter;
    if union > 0.0 {
        inter / union
    } else {
        0.0
    }
}

/// Region detection of one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detection {
    /// GT regions.
    pub gt: usize,
    /// Predicted table boxes.
    pub pred: usize,
    /// (GT region, predicted box, IoU) pairs with IoU ≥ [`MIN_IOU`].
    pub found: Vec<(usize, usize, f64)>,
}

impl Detection {
    /// Found / predicted, `None` without predictions.
    pub fn precision(&self) -> Option<f64> {
        (self.pred > 0).then(|| self.found.len() as f64 / self.pred as f64)
    }

    /// Found / GT regions, `None` without regions.
    pub fn recall(&self) -> Option<f64> {
        (self.gt > 0).then(|| self.found.len() as f64 / self.gt as f64)
    }
}

/// Pairs GT regions with predicted `(page, top-left box)` tables page by page (Hungarian on
/// IoU); `page_heights[p]` converts the regions of page `p` (a missing page uses 792 pt).
pub fn detect(gt: &[Region], pred: &[(u32, BBox)], page_heights: &[f32]) -> Detection {
    let mut det = Detection { gt: gt.len(), pred: pred.len(), found: Vec::new() };
    let mut pages: Vec<u32> = gt.iter().map(|r| r.page).collect();
    pages.sort_unstable();
    pages.dedup();
    for p in pages {
        let h = f64::from(page_heights.get(p as usize).copied().unwrap_or(792.0));
        let g: Vec<(usize, [f64; 4])> = gt
            .iter()
            .enumerate()
            .filter(|(_, r)| r.page == p)
            .map(|(i, r)| (i, r.to_top_left(h)))
            .collect();
        let q: Vec<(usize, [f64; 4])> = pred
            .iter()
            .enumerate()
            .filter(|(_, (pp, _))| *pp == p)
            .map(|(j, (_, b))| {
                (j, [f64::from(b.x0), f64::from(b.y0), f64::from(b.x1), f64::from(b.y1)])
            })
            .collect();
        if q.is_empty() {
            continue;
        }
        let w: Vec<f64> =
            g.iter().flat_map(|(_, a)| q.iter().map(move |(_, b)| box_iou(a, b))).collect();
        // Finite weights on a dense matrix: always feasible.
        if let Ok((rows, cols)) = lsap::solve(g.len(), q.len(), &w, true) {
            for (r, c) in rows.into_iter().zip(cols) {
                let iou = w[r * q.len() + c];
                if iou >= MIN_IOU {
                    det.found.push((g[r].0, q[c].0, iou));
                }
            }
        }
    }
    det.found.sort_by_key(|f| f.0);
    det
}

#[cfg(test)]
mod tests {
    use super::*;

    const REG: &str = r#"<?xml version="1.0"?><document filename='x-reg.xml'>
      <table id='1'><region id='1' page='1'><bounding-box x1='100' y1='500' x2='300' y2='600'/></region></table>
      <table id='2'><region id='1' page='2'><bounding-box x1='100' y1='100' x2='200' y2='200'/></region></table>
    </document>"#;
    const STR: &str = r#"<?xml version="1.0"?><document filename="x-str.xml">
      <table id="1"><region col-increment="0" id="1" page="1" row-increment="0">
        <cell id="1" start-col="0" start-row="0" end-col="1"><bounding-box x1="1" x2="2" y1="1" y2="2"/><content>Head
          line</content></cell>
        <cell id="2" start-col="0" start-row="1"><content>a</content></cell>
        <cell id="3" start-col="1" start-row="1"><content>1.5</content></cell>
      </region></table>
    </document>"#;

    #[test]
    fn icdar_files_give_regions_and_cells() {
        let t = read_truth(REG.as_bytes(), STR.as_bytes()).unwrap();
        assert_eq!(t.regions.len(), 2);
        assert_eq!(t.regions[1].page, 1);
        // Bottom-left origin on a 792 pt page: y 500..600 → top 192, bottom 292.
        assert_eq!(t.regions[0].to_top_left(792.0), [100.0, 192.0, 300.0, 292.0]);
        let tab = &t.tables[0];
        assert_eq!((tab.rows, tab.cols), (2, 2));
        assert_eq!(tab.cells[0].text, "Head line");
        assert_eq!(tab.cells[0].col_span, 2);
        assert!(read_truth(b"<document>", STR.as_bytes()).unwrap_err().starts_with("reg:"));
    }

    #[test]
    fn regions_are_found_at_iou_half_on_their_page() {
        let t = read_truth(REG.as_bytes(), STR.as_bytes()).unwrap();
        let heights = [792.0, 792.0];
        // Exact box of region 0; a box for region 1 that overlaps a third (IoU 1/3); one on the
        // wrong page.
        let pred = vec![
            (0, BBox::new(100.0, 192.0, 300.0, 292.0)),
            (1, BBox::new(150.0, 592.0, 250.0, 692.0)),
            (0, BBox::new(100.0, 592.0, 200.0, 692.0)),
        ];
        let d = detect(&t.regions, &pred, &heights);
        assert_eq!(d.found, [(0, 0, 1.0)]);
        assert_eq!((d.precision(), d.recall()), (Some(1.0 / 3.0), Some(0.5)));
        assert!((box_iou(&[0.0, 0.0, 2.0, 1.0], &[1.0, 0.0, 3.0, 1.0]) - 1.0 / 3.0).abs() < 1e-12);
    }
}
