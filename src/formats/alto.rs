//! ALTO XML (v1 to v4, with any namespace or none; GROBID's `pdfalto` writes v3) into a
//! [`Doc`].
//!
//! - **Pages**: each `Layout/Page` is a page; its index is `PHYSICAL_IMG_NR` − 1 where that is
//!   a positive integer, else its position among the pages. `WIDTH`/`HEIGHT` give
//!   [`Doc::pages`].
//! - **Units**: `Description/MeasurementUnit` is `pixel` (also when absent), `mm10` (1/10 mm,
//!   × 72/254 to points) or `inch1200` (1/1200 inch, × 0.06); any other unit is an error.
//!   `pdfalto` writes `pixel` but its coordinates are PDF points (72 dpi), so `pixel` is read
//!   as points — unless the caller gives the PDF's page sizes, when a page's `pixel`
//!   coordinates are scaled by page size ÷ `WIDTH`/`HEIGHT` (what an OCR engine's ALTO, in
//!   image pixels, needs; for `pdfalto` the factor is 1). Boxes are `HPOS`, `VPOS`, `WIDTH`,
//!   `HEIGHT`: top-left origin, as [`BBox`] has it.
//! - **Blocks**: one block per `TextBlock` (inside `ComposedBlock`s too), in document order,
//!   the page's areas taken in visual order: `TopMargin` (blocks there are page headers),
//!   `LeftMargin`, `PrintSpace`, `RightMargin` (paragraphs), `BottomMargin` (page footers).
//!   ALTO says nothing of headings, lists or tables, so every other text block is a paragraph.
//!   A block without its own box gets the union of its lines' (else its strings') boxes.
//! - **Text**: within a `TextLine`, `String CONTENT`s are joined as they stand and each `SP`
//!   between them is one space (`pdfalto` writes two `String`s with no `SP` between them for
//!   one word in two fonts: `ρ` + `0` is `ρ0`); in a file with no `SP` at all, strings are
//!   joined with spaces. Lines are joined with a space, except: a line ending in `HYP` (ALTO's
//!   hyphenation mark) joins the next line's first word without the hyphen; a line ending in a
//!   soft hyphen (U+00AD) drops it and joins tight; a line whose text ends in a hyphen after a
//!   letter or digit (`pdfalto` keeps `pack-` in `CONTENT` and writes no `HYP`) keeps the
//!   hyphen and joins tight (`pack-age`, `back-reaction`: no space that the page does not
//!   show). White space is collapsed; a block with no text is dropped.
//! - **Figures**: an `Illustration` with a box of positive area is a figure block, except
//!   `pdfalto`'s `TYPE="svg"` ones, which are the union of a page's vector drawing (rules,
//!   table lines and plots together), not a picture. `GraphicalElement`s (rules) are dropped.
//! - Left alone: `Styles`, `Tags`, `ReadingOrder`, `Shape`, `SUBS_CONTENT`, and `pdfalto`'s
//!   `<name>_metadata.xml` and `<name>.xml_data/` beside the ALTO file.
//!
//! Well-formed XML whose root is not `<alto>` (such as `pdfalto`'s `_metadata.xml`) fails with
//! [`NOT_ALTO`], which an import counts as another kind of file (`is_not_alto`), not as a
//! broken one.

use roxmltree::Node;

use super::{xml, Format, FormatError};
use crate::doc::{BBox, Block, BlockKind, Doc, Page};
use crate::normalize::collapse_ws;

/// The format this file reads.
const FORMAT: Format = Format::Alto;

/// The start of the error for XML that is not ALTO at all (an import skips such files).
pub const NOT_ALTO: &str = "not ALTO XML";

/// Returns whether `e` says the file is XML of some other kind (its root is not `<alto>`),
/// which an import leaves alone rather than counting as broken.
pub(crate) fn is_not_alto(e: &FormatError) -> bool {
    e.format == FORMAT && e.source.to_string().starts_with(NOT_ALTO)
}

/// Reads an ALTO file. `sizes` are the PDF's page sizes in points where the caller knows them
/// (they scale `pixel` coordinates; see the module notes), else empty.
pub(crate) fn read_alto(bytes: &[u8], sizes: &[Page]) -> Result<Doc, FormatError> {
    let doc = xml::parse(bytes, FORMAT)?;
    let root = doc.root_element();
    if root.tag_name().name() != "alto" {
        return Err(FormatError::new(
            FORMAT,
            format!("{NOT_ALTO} (the root element is <{}>, not <alto>)", root.tag_name().name()),
        ));
    }
    let unit = match xml::child(root, "Description")
        .and_then(|d| xml::child(d, "MeasurementUnit"))
        .and_then(|u| u.text())
        .map(str::trim)
    {
        None | Some("pixel") => Unit::Pixel,
        Some("mm10") => Unit::Mm10,
        Some("inch1200") => Unit::Inch1200,
        Some(other) => {
            return Err(FormatError::new(
                FORMAT,
                format!("unknown MeasurementUnit {other:?} (ALTO has pixel, mm10 and inch1200)"),
            )
            .at("Description/MeasurementUnit"))
        }
    };
    let layout = xml::child(root, "Layout")
        .ok_or_else(|| FormatError::new(FORMAT, "ALTO without a <Layout>"))?;
    let pages: Vec<Node<'_, '_>> = xml::children(layout, "Page").collect();
    if pages.is_empty() {
        return Err(FormatError::new(FORMAT, "no <Page> in <Layout>"));
    }
    let spaced = root.descendants().any(|n| n.is_element() && n.tag_name().name() == "SP");
    let mut out = Doc::default();
    for (i, p) in pages.into_iter().enumerate() {
        let at = format!("Page[{}]", i + 1);
        let index = p
            .attribute("PHYSICAL_IMG_NR")
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|&n| n >= 1)
            .map_or(i as u32, |n| n - 1);
        let (w, h) = (num(p, "WIDTH", &at)?, num(p, "HEIGHT", &at)?);
        let given = sizes.get(index as usize).filter(|s| s.width > 0.0 && s.height > 0.0);
        let k = unit.points();
        let scale = match (unit, given, w, h) {
            (Unit::Pixel, Some(s), Some(w), Some(h)) if w > 0.0 && h > 0.0 => {
                Scale { x: f64::from(s.width) / w, y: f64::from(s.height) / h }
            }
            _ => Scale { x: k, y: k },
        };
        let size = match (w, h) {
            (Some(w), Some(h)) => {
                Page { width: (w * scale.x) as f32, height: (h * scale.y) as f32 }
            }
            _ => given.copied().unwrap_or_default(),
        };
        if out.pages.len() <= index as usize {
            out.pages.resize(index as usize + 1, Page::default());
        }
        out.pages[index as usize] = size;
        let mut r = Reader { page: index, scale, spaced, blocks: &mut out.blocks };
        for (area, kind) in [
            ("TopMargin", BlockKind::PageHeader),
            ("LeftMargin", BlockKind::Paragraph),
            ("PrintSpace", BlockKind::Paragraph),
            ("RightMargin", BlockKind::Paragraph),
            ("BottomMargin", BlockKind::PageFooter),
        ] {
            for a in xml::children(p, area) {
                r.area(a, kind, &format!("{at}/{area}"))?;
            }
        }
    }
    Ok(out)
}

/// ALTO's measurement units.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unit {
    Pixel,
    Mm10,
    Inch1200,
}

impl Unit {
    /// Points per unit (`pixel` read as a point, as `pdfalto` means it).
    fn points(self) -> f64 {
        match self {
            Unit::Pixel => 1.0,
            Unit::Mm10 => 72.0 / 254.0,
            Unit::Inch1200 => 72.0 / 1200.0,
        }
    }
}

/// Points per unit along each axis, on one page.
#[derive(Debug, Clone, Copy)]
struct Scale {
    x: f64,
    y: f64,
}

/// A number attribute: `None` when absent, an error when it is not a finite number.
fn num(n: Node<'_, '_>, attr: &str, at: &str) -> Result<Option<f64>, FormatError> {
    let Some(v) = n.attribute(attr) else { return Ok(None) };
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(Some(x)),
        _ => Err(FormatError::new(FORMAT, format!("{attr}={v:?} is not a number")).at(at)),
    }
}

/// Names an element for messages: `TextBlock[p1_b3]` by its `ID`, else by its position.
fn name(n: Node<'_, '_>, pos: usize) -> String {
    match n.attribute("ID") {
        Some(id) => format!("{}[{id}]", n.tag_name().name()),
        None => format!("{}[{}]", n.tag_name().name(), pos + 1),
    }
}

struct Reader<'d> {
    page: u32,
    scale: Scale,
    /// Whether the file writes `SP` elements at all.
    spaced: bool,
    blocks: &'d mut Vec<Block>,
}

impl Reader<'_> {
    /// The box of an element with all four of `HPOS`, `VPOS`, `WIDTH`, `HEIGHT`, in points.
    fn own_box(&self, n: Node<'_, '_>, at: &str) -> Result<Option<BBox>, FormatError> {
        let vals =
            (num(n, "HPOS", at)?, num(n, "VPOS", at)?, num(n, "WIDTH", at)?, num(n, "HEIGHT", at)?);
        let (Some(x), Some(y), Some(w), Some(h)) = vals else { return Ok(None) };
        let Scale { x: sx, y: sy } = self.scale;
        Ok(Some(BBox::new(
            (x * sx) as f32,
            (y * sy) as f32,
            ((x + w.max(0.0)) * sx) as f32,
            ((y + h.max(0.0)) * sy) as f32,
        )))
    }

    /// The blocks of a page area or a `ComposedBlock`, text blocks as `kind`.
    fn area(&mut self, n: Node<'_, '_>, kind: BlockKind, at: &str) -> Result<(), FormatError> {
        for (pos, c) in n.children().filter(Node::is_element).enumerate() {
            let at = format!("{at}/{}", name(c, pos));
            match c.tag_name().name() {
                "TextBlock" => self.text_block(c, kind, &at)?,
                "ComposedBlock" => self.area(c, kind, &at)?,
                "Illustration" => {
                    let svg = c.attribute("TYPE").is_some_and(|t| t.eq_ignore_ascii_case("svg"));
                    if let Some(b) = self.own_box(c, &at)? {
                        if !svg && b.width() > 0.0 && b.height() > 0.0 {
                            self.blocks.push(Block::new(BlockKind::Figure, self.page, b, ""));
                        }
                    }
                }
                // Rules and other drawn lines; `Shape` outlines.
                _ => {}
            }
        }
        Ok(())
    }

    fn text_block(
        &mut self,
        n: Node<'_, '_>,
        kind: BlockKind,
        at: &str,
    ) -> Result<(), FormatError> {
        let mut text = String::new();
        let mut join = Join::Space;
        let mut union: Option<BBox> = None;
        let mut grow = |b: BBox| union = Some(union.map_or(b, |u| u.union(&b)));
        for (pos, line) in xml::children(n, "TextLine").enumerate() {
            let at = format!("{at}/{}", name(line, pos));
            match self.own_box(line, &at)? {
                Some(b) => grow(b),
                None => {
                    for s in xml::children(line, "String") {
                        if let Some(b) = self.own_box(s, &at)? {
                            grow(b);
                        }
                    }
                }
            }
            let (t, hyp) = self.line_text(line, &at)?;
            let t = t.trim();
            if t.is_empty() {
                continue;
            }
            if !text.is_empty() && join == Join::Space {
                text.push(' ');
            }
            text.push_str(t);
            join = if hyp {
                Join::Tight
            } else if text.ends_with('\u{ad}') {
                text.pop();
                Join::Tight
            } else if ends_in_word_hyphen(&text) {
                Join::Tight
            } else {
                Join::Space
            };
        }
        let text = collapse_ws(&text);
        if text.is_empty() {
            return Ok(());
        }
        let bbox = match self.own_box(n, at)? {
            Some(b) => b,
            None => union.unwrap_or_default(),
        };
        self.blocks.push(Block::new(kind, self.page, bbox, text));
        Ok(())
    }

    /// A line's text, and whether it ends in `HYP`.
    fn line_text(&self, line: Node<'_, '_>, at: &str) -> Result<(String, bool), FormatError> {
        let mut out = String::new();
        let mut space = false;
        let mut hyp = false;
        for c in line.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "String" => {
                    let content = c.attribute("CONTENT").ok_or_else(|| {
                        FormatError::new(FORMAT, "<String> without CONTENT").at(at)
                    })?;
                    if !out.is_empty() && (space || !self.spaced) {
                        out.push(' ');
                    }
                    out.push_str(content);
                    space = false;
                    hyp = false;
                }
                "SP" => space = true,
                "HYP" => hyp = true,
                _ => {}
            }
        }
        Ok((out, hyp))
    }
}

/// How a line joins the next.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Join {
    Space,
    Tight,
}

/// Whether `text` ends in a hyphen (`-` or U+2010) right after a letter or digit.
fn ends_in_word_hyphen(text: &str) -> bool {
    let mut rev = text.chars().rev();
    matches!(rev.next(), Some('-' | '\u{2010}')) && rev.next().is_some_and(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-page ALTO v3 file as `pdfalto` writes it (pixel units that are points): a
    /// header in the top margin, a paragraph whose first line ends in `HYP`, one whose line
    /// ends in a literal hyphen, two strings of one word with no `SP` between them, a bitmap
    /// and a vector illustration, a block in a `ComposedBlock`, and a footer.
    const PDFALTO: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<alto xmlns="http://www.loc.gov/standards/alto/ns-v3#">
  <Description><MeasurementUnit>pixel</MeasurementUnit></Description>
  <Styles><TextStyle ID="font0" FONTSIZE="10"/></Styles>
  <Layout>
    <Page ID="Page1" PHYSICAL_IMG_NR="1" WIDTH="612" HEIGHT="792">
      <TopMargin>
        <TextBlock ID="p1_b0" HPOS="72" VPOS="20" WIDTH="100" HEIGHT="10">
          <TextLine><String CONTENT="Running"/><SP/><String CONTENT="head"/></TextLine>
        </TextBlock>
      </TopMargin>
      <PrintSpace>
        <TextBlock ID="p1_b1" HPOS="72" VPOS="100" WIDTH="200" HEIGHT="24.5">
          <TextLine HPOS="72" VPOS="100" WIDTH="200" HEIGHT="12">
            <String CONTENT="An" STYLEREFS="font0"/><SP WIDTH="3"/><String CONTENT="evalu" SUBS_TYPE="HypPart1" SUBS_CONTENT="evaluation"/><HYP CONTENT="-"/>
          </TextLine>
          <TextLine HPOS="72" VPOS="112.5" WIDTH="150" HEIGHT="12">
            <String CONTENT="ation" SUBS_TYPE="HypPart2" SUBS_CONTENT="evaluation"/><SP/><String CONTENT="of"/><SP/><String CONTENT="ρ"/><String CONTENT="0"/>
          </TextLine>
        </TextBlock>
        <TextBlock ID="p1_b2">
          <TextLine HPOS="300" VPOS="200" WIDTH="50" HEIGHT="10"><String CONTENT="back-"/></TextLine>
          <TextLine HPOS="300" VPOS="210" WIDTH="60" HEIGHT="10"><String CONTENT="reaction"/><SP/><String CONTENT="pages"/><SP/><String CONTENT="10"/><SP/><String CONTENT="-"/></TextLine>
          <TextLine HPOS="290" VPOS="220" WIDTH="20" HEIGHT="10"><String CONTENT="12"/></TextLine>
        </TextBlock>
        <Illustration ID="p1_i1" HPOS="100" VPOS="300" WIDTH="200" HEIGHT="100" TYPE="image"/>
        <Illustration ID="p1_s9" HPOS="0" VPOS="0" WIDTH="612" HEIGHT="792" TYPE="svg"/>
        <GraphicalElement ID="p1_g1" HPOS="72" VPOS="450" WIDTH="400" HEIGHT="1"/>
        <TextBlock ID="p1_b3" HPOS="72" VPOS="500" WIDTH="10" HEIGHT="10"><TextLine><SP/></TextLine></TextBlock>
      </PrintSpace>
    </Page>
    <Page ID="Page3" PHYSICAL_IMG_NR="3" WIDTH="595.5" HEIGHT="842">
      <PrintSpace>
        <ComposedBlock ID="p3_c1" HPOS="0" VPOS="0" WIDTH="1" HEIGHT="1">
          <TextBlock ID="p3_b1" HPOS="50" VPOS="60" WIDTH="70" HEIGHT="80">
            <TextLine><String CONTENT="Inside"/></TextLine>
          </TextBlock>
        </ComposedBlock>
      </PrintSpace>
      <BottomMargin>
        <TextBlock ID="p3_b2" HPOS="290" VPOS="800" WIDTH="15" HEIGHT="9">
          <TextLine><String CONTENT="3"/></TextLine>
        </TextBlock>
      </BottomMargin>
    </Page>
  </Layout>
</alto>"#;

    #[test]
    fn reads_pdfalto_blocks_boxes_and_hyphenation() {
        let d = read_alto(PDFALTO.as_bytes(), &[]).unwrap();
        use BlockKind::*;
        let got: Vec<(BlockKind, u32, &str)> =
            d.blocks.iter().map(|b| (b.kind, b.page, b.text.as_str())).collect();
        assert_eq!(
            got,
            [
                (PageHeader, 0, "Running head"),
                (Paragraph, 0, "An evaluation of ρ0"),
                (Paragraph, 0, "back-reaction pages 10 - 12"),
                (Figure, 0, ""),
                (Paragraph, 2, "Inside"),
                (PageFooter, 2, "3"),
            ]
        );
        let b = &d.blocks;
        assert_eq!(b[0].bbox, BBox::new(72.0, 20.0, 172.0, 30.0));
        assert_eq!(b[1].bbox, BBox::new(72.0, 100.0, 272.0, 124.5));
        // No box of its own: the union of its lines.
        assert_eq!(b[2].bbox, BBox::new(290.0, 200.0, 360.0, 230.0));
        assert_eq!(b[3].bbox, BBox::new(100.0, 300.0, 300.0, 400.0));
        assert_eq!(b[4].bbox, BBox::new(50.0, 60.0, 120.0, 140.0));
        // Page 2 is not in the file: its size is unknown.
        assert_eq!(
            d.pages,
            [
                Page { width: 612.0, height: 792.0 },
                Page::default(),
                Page { width: 595.5, height: 842.0 }
            ]
        );
    }

    #[test]
    fn converts_mm10_and_inch1200_and_scales_pixels_to_given_page_sizes() {
        let one = |ns: &str, unit: &str, w: &str, h: &str, b: [&str; 4]| {
            format!(
                r#"<alto{ns}><Description><MeasurementUnit>{unit}</MeasurementUnit></Description>
                <Layout><Page WIDTH="{w}" HEIGHT="{h}"><PrintSpace>
                <TextBlock HPOS="{}" VPOS="{}" WIDTH="{}" HEIGHT="{}"><TextLine>
                <String CONTENT="x"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>"#,
                b[0], b[1], b[2], b[3]
            )
        };
        // A4 in tenths of a millimetre: 2100 x 2970 = 595.28 x 841.89 pt; 254 mm10 = 72 pt.
        let d = read_alto(
            one("", "mm10", "2100", "2970", ["254", "508", "127", "254"]).as_bytes(),
            &[],
        )
        .unwrap();
        let p = d.pages[0];
        assert!((p.width - 595.2756).abs() < 1e-3 && (p.height - 841.8898).abs() < 1e-3, "{p:?}");
        assert_eq!(d.blocks[0].bbox, BBox::new(72.0, 144.0, 108.0, 216.0));
        // Letter in 1/1200 inch: 10200 x 13200 = 612 x 792 pt; 1200 = 72 pt.
        let ns = r#" xmlns="http://www.loc.gov/standards/alto/ns-v4#""#;
        let d = read_alto(
            one(ns, "inch1200", "10200", "13200", ["1200", "2400", "600", "1200"]).as_bytes(),
            &[],
        )
        .unwrap();
        assert_eq!(d.pages[0], Page { width: 612.0, height: 792.0 });
        assert_eq!(d.blocks[0].bbox, BBox::new(72.0, 144.0, 108.0, 216.0));
        // An OCR ALTO in 300 dpi pixels (2550 x 3300 for Letter), with the PDF's page size
        // given: 300 px = 72 pt. Without the size, pixels are read as points.
        let xml = one(
            r#" xmlns="http://www.loc.gov/standards/alto/ns-v2#""#,
            "pixel",
            "2550",
            "3300",
            ["300", "600", "150", "300"],
        );
        let letter = [Page { width: 612.0, height: 792.0 }];
        let d = read_alto(xml.as_bytes(), &letter).unwrap();
        assert_eq!(d.pages, letter);
        assert_eq!(d.blocks[0].bbox, BBox::new(72.0, 144.0, 108.0, 216.0));
        let d = read_alto(xml.as_bytes(), &[]).unwrap();
        assert_eq!(d.blocks[0].bbox, BBox::new(300.0, 600.0, 450.0, 900.0));
    }

    #[test]
    fn strings_without_any_sp_in_the_file_are_words() {
        let xml = r#"<alto><Layout><Page><PrintSpace><TextBlock>
            <TextLine><String CONTENT="two"/><String CONTENT="words"/></TextLine>
            <TextLine><String CONTENT="soft&#xAD;"/></TextLine><TextLine><String CONTENT="ly"/></TextLine>
            </TextBlock></PrintSpace></Page></Layout></alto>"#;
        let d = read_alto(xml.as_bytes(), &[]).unwrap();
        assert_eq!(d.blocks[0].text, "two words softly");
        assert_eq!(d.blocks[0].bbox, BBox::default());
        assert_eq!(d.pages, [Page::default()]);
    }

    #[test]
    fn malformed_alto_says_what_is_wrong() {
        let err = |x: &str| read_alto(x.as_bytes(), &[]).unwrap_err().to_string();
        assert!(err("<alto><Layout>").starts_with("invalid XML"), "{}", err("<alto><Layout>"));
        let e = read_alto(b"<METADATA><TITLE>x</TITLE></METADATA>", &[]).unwrap_err();
        assert!(is_not_alto(&e), "{e}");
        assert!(e.to_string().contains("<METADATA>"), "{e}");
        assert_eq!(err("<alto><Description/></alto>"), "ALTO without a <Layout>");
        assert_eq!(err("<alto><Layout/></alto>"), "no <Page> in <Layout>");
        let e = err("<alto><Description><MeasurementUnit>cm</MeasurementUnit></Description>\
             <Layout><Page/></Layout></alto>");
        assert!(
            e.contains("unknown MeasurementUnit \"cm\"") && e.ends_with("MeasurementUnit"),
            "{e}"
        );
        let e = err(
            r#"<alto><Layout><Page><PrintSpace><TextBlock ID="b7" HPOS="1" VPOS="x2" WIDTH="1" HEIGHT="1">
               <TextLine><String CONTENT="a"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>"#,
        );
        assert_eq!(e, "VPOS=\"x2\" is not a number at Page[1]/PrintSpace/TextBlock[b7]");
        let e = err("<alto><Layout><Page><PrintSpace><TextBlock><TextLine><String/></TextLine>\
             </TextBlock></PrintSpace></Page></Layout></alto>");
        assert_eq!(e, "<String> without CONTENT at Page[1]/PrintSpace/TextBlock[1]/TextLine[1]");
        let e = err(r#"<alto><Layout><Page WIDTH="wide"/></Layout></alto>"#);
        assert_eq!(e, "WIDTH=\"wide\" is not a number at Page[1]");
    }
}
