//! ICDAR 2013 table competition ground truth (`--truth icdar2013`): `<stem>-reg.xml` (table
//! regions per page) and `<stem>-str.xml` (cells with `start-row`, `start-col`, optional
//! `end-row`/`end-col`, and `content`) beside `<stem>.pdf`, stored as the truth parts `reg`
//! and `str`.
//!
//! Regions are in PDF coordinates with a bottom-left origin (`x1 y1 x2 y2`, y up) and 1-based
//! pages; [`Region::to_top_left`] turns them into the Doc's top-left boxes given the page
//! height. Each `<table>` of the structure file is one GT table: the cells of all its regions,
//! a region's `row-increment`/`col-increment` added to its cells' positions; text has its
//! whitespace collapsed. The table suite's region detection is in `suites::icdar2013`.

use roxmltree::{Document, Node};

use super::{Format, FormatError};
use crate::doc::{Cell, Table};

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
pub(crate) fn read_regions(xml: &str) -> Result<Vec<Region>, FormatError> {
    regions(xml).map_err(|e| FormatError::new(Format::Icdar2013, e))
}

fn regions(xml: &str) -> Result<Vec<Region>, String> {
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
pub(crate) fn read_structure(xml: &str) -> Result<Vec<Table>, FormatError> {
    structure(xml).map_err(|e| FormatError::new(Format::Icdar2013, e))
}

fn structure(xml: &str) -> Result<Vec<Table>, String> {
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
pub fn read_truth(reg: &[u8], structure: &[u8]) -> Result<Icdar2013, FormatError> {
    fn utf8(b: &[u8]) -> Result<&str, FormatError> {
        std::str::from_utf8(b).map_err(|e| FormatError::new(Format::Icdar2013, e.to_string()))
    }
    let regions = utf8(reg).and_then(read_regions).map_err(|e| e.in_part("reg"))?;
    let tables = utf8(structure).and_then(read_structure).map_err(|e| e.in_part("str"))?;
    Ok(Icdar2013 { regions, tables })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two regions on pages 1 and 2 (shared with the detection tests in `suites`).
    pub(crate) const REG: &str = r#"<?xml version="1.0"?><document filename='x-reg.xml'>
      <table id='1'><region id='1' page='1'><bounding-box x1='100' y1='500' x2='300' y2='600'/></region></table>
      <table id='2'><region id='1' page='2'><bounding-box x1='100' y1='100' x2='200' y2='200'/></region></table>
    </document>"#;
    /// The first table's cells: a spanning header and one row.
    pub(crate) const STR: &str = r#"<?xml version="1.0"?><document filename="x-str.xml">
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
        assert!(read_truth(b"<document>", STR.as_bytes())
            .unwrap_err()
            .to_string()
            .starts_with("reg:"));
    }
}
