//! COCO detection JSON as a truth (`ingest --truth coco`): the format DocLayNet, PubLayNet and
//! D4LA ship their layout boxes in, here with images that are the pages of one PDF
//! (`<stem>.coco.json` beside `<stem>.pdf`, or `coco/<stem>.json` in the PDF's folder or its
//! parent).
//!
//! Read: `images` (`id`, `file_name`, `width`, `height`, and DocLayNet's `page_no` where
//! given), `annotations` (`image_id`, `category_id`, `bbox` `[x, y, w, h]` in the image's
//! pixels, `area`, `iscrowd`) and `categories` (`id`, `name`). Left alone: `segmentation`,
//! `info`, `licenses` and any other field.
//!
//! An image's page (1-based): its `page_no`, else the number its `file_name` ends with
//! (`report_7.png`, `report-0007.jpg`, `7.png`: the last run of digits of the stem), else page
//! 1 where the file has one image. Refused, naming the item: an image whose page cannot be
//! told, two images on one page, an annotation of an image the file does not have, a
//! `category_id` that is not among `categories`, a box with a negative size or outside its
//! image (by more than one unit, the rounding of pixel coordinates), and — at ingest, where the
//! PDF's page count is known ([`check_pages`]) — an image that is no page of the PDF.

use serde::Deserialize;

use super::{Format, FormatError};

/// A COCO file read as one PDF's page truths.
#[derive(Debug, Clone, PartialEq)]
pub struct CocoTruth {
    /// The category names, in the file's order.
    pub categories: Vec<String>,
    /// The images (pages), in the file's order.
    pub images: Vec<CocoImage>,
}

/// One image: one page.
#[derive(Debug, Clone, PartialEq)]
pub struct CocoImage {
    /// Its `id`.
    pub id: i64,
    /// Its `file_name`.
    pub file_name: String,
    /// The page it is, 0-based.
    pub page: u32,
    /// Its width and height (the frame of its boxes).
    pub size: [f64; 2],
    /// Its boxes, in the file's order.
    pub boxes: Vec<CocoBox>,
}

/// One annotation.
#[derive(Debug, Clone, PartialEq)]
pub struct CocoBox {
    /// Its category's name.
    pub category: String,
    /// `[x, y, w, h]` in the image's frame.
    pub bbox: [f64; 4],
    /// Its `area` (`w·h` where absent).
    pub area: f64,
    /// `iscrowd`.
    pub crowd: bool,
}

#[derive(Deserialize)]
struct RawFile {
    images: Vec<RawImage>,
    #[serde(default)]
    annotations: Vec<RawAnnotation>,
    categories: Vec<RawCategory>,
}

#[derive(Deserialize)]
struct RawImage {
    id: i64,
    #[serde(default)]
    file_name: String,
    width: f64,
    height: f64,
    #[serde(default)]
    page_no: Option<u32>,
}

#[derive(Deserialize)]
struct RawAnnotation {
    #[serde(default)]
    id: Option<i64>,
    image_id: i64,
    category_id: i64,
    bbox: [f64; 4],
    #[serde(default)]
    area: Option<f64>,
    #[serde(default)]
    iscrowd: u8,
}

#[derive(Deserialize)]
struct RawCategory {
    id: i64,
    name: String,
}

fn err(msg: String) -> FormatError {
    FormatError::new(Format::Coco, msg)
}

/// The page number a file name ends with (the last run of digits of its stem).
fn page_of_name(name: &str) -> Option<u32> {
    let stem = name.rsplit('/').next().unwrap_or(name);
    let stem = stem.rsplit_once('.').map(|(s, _)| s).unwrap_or(stem);
    let digits: String = stem
        .chars()
        .rev()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    let digits: String = digits.chars().rev().collect();
    digits.parse().ok()
}

/// Reads a COCO file (see the module docs for what is refused).
pub fn read(bytes: &[u8]) -> Result<CocoTruth, FormatError> {
    let raw: RawFile = serde_json::from_slice(bytes).map_err(|e| err(e.to_string()))?;
    let single = raw.images.len() == 1;
    let mut images: Vec<CocoImage> = Vec::with_capacity(raw.images.len());
    for im in &raw.images {
        let what = format!("image {} ({:?})", im.id, im.file_name);
        let page = im.page_no.or_else(|| page_of_name(&im.file_name)).or(single.then_some(1));
        let page = match page {
            Some(p) if p >= 1 => p - 1,
            Some(_) => return Err(err(format!("{what}: page 0, but pages count from 1"))),
            None => {
                return Err(err(format!(
                    "{what}: which page it is cannot be told (no page_no, no number at the end \
                     of its file_name)"
                )))
            }
        };
        if !(im.width > 0.0 && im.height > 0.0) {
            return Err(err(format!("{what}: size {}×{} is not positive", im.width, im.height)));
        }
        if let Some(other) = images.iter().find(|o| o.page == page || o.id == im.id) {
            return Err(err(format!(
                "{what}: page {} or id given twice (also image {} ({:?}))",
                page + 1,
                other.id,
                other.file_name
            )));
        }
        images.push(CocoImage {
            id: im.id,
            file_name: im.file_name.clone(),
            page,
            size: [im.width, im.height],
            boxes: Vec::new(),
        });
    }
    for (k, a) in raw.annotations.iter().enumerate() {
        let what = match a.id {
            Some(id) => format!("annotation {id}"),
            None => format!("annotation #{k}"),
        };
        let Some(cat) = raw.categories.iter().find(|c| c.id == a.category_id) else {
            return Err(err(format!(
                "{what}: category_id {} is not among the file's categories",
                a.category_id
            )));
        };
        let Some(im) = images.iter_mut().find(|i| i.id == a.image_id) else {
            return Err(err(format!("{what}: image_id {} is not among its images", a.image_id)));
        };
        let [x, y, w, h] = a.bbox;
        if a.bbox.iter().any(|v| !v.is_finite()) || w < 0.0 || h < 0.0 {
            return Err(err(format!("{what}: box {:?} has a negative or no size", a.bbox)));
        }
        let [iw, ih] = im.size;
        if x < -1.0 || y < -1.0 || x + w > iw + 1.0 || y + h > ih + 1.0 {
            return Err(err(format!(
                "{what}: box {:?} lies outside its image {} ({:?}, {iw}×{ih})",
                a.bbox, im.id, im.file_name
            )));
        }
        im.boxes.push(CocoBox {
            category: cat.name.clone(),
            bbox: a.bbox,
            area: a.area.unwrap_or(w * h),
            crowd: a.iscrowd != 0,
        });
    }
    Ok(CocoTruth { categories: raw.categories.into_iter().map(|c| c.name).collect(), images })
}

/// Checks that every image is a page of a PDF of `pages` pages.
pub fn check_pages(t: &CocoTruth, pages: u32) -> Result<(), String> {
    match t.images.iter().find(|i| i.page >= pages) {
        Some(i) => Err(format!(
            "image {} ({:?}) is page {}, but the PDF has {pages} page(s)",
            i.id,
            i.file_name,
            i.page + 1
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"{
      "images": [{"id": 10, "file_name": "paper_2.png", "width": 1000, "height": 2000},
                 {"id": 11, "file_name": "x.png", "width": 500, "height": 500, "page_no": 1}],
      "annotations": [
        {"id": 1, "image_id": 10, "category_id": 3, "bbox": [10, 20, 100, 50], "area": 4000},
        {"id": 2, "image_id": 11, "category_id": 1, "bbox": [0, 0, 500, 500], "iscrowd": 1}],
      "categories": [{"id": 1, "name": "Text"}, {"id": 3, "name": "Table"}],
      "info": {"ignored": true}
    }"#;

    #[test]
    fn a_file_reads_into_pages_and_boxes() {
        let t = read(FILE.as_bytes()).unwrap();
        assert_eq!(t.categories, ["Text", "Table"]);
        assert_eq!(t.images.len(), 2);
        let a = &t.images[0];
        assert_eq!((a.page, a.size), (1, [1000.0, 2000.0]));
        assert_eq!(
            a.boxes,
            [CocoBox {
                category: "Table".into(),
                bbox: [10., 20., 100., 50.],
                area: 4000.,
                crowd: false
            }]
        );
        let b = &t.images[1];
        assert_eq!(b.page, 0);
        assert_eq!((b.boxes[0].area, b.boxes[0].crowd), (250_000.0, true));
        assert!(check_pages(&t, 2).is_ok());
        let e = check_pages(&t, 1).unwrap_err();
        assert!(e.contains("image 10") && e.contains("paper_2.png") && e.contains("page 2"), "{e}");
    }

    #[test]
    fn bad_items_are_named() {
        let bad =
            |from: &str, to: &str| read(FILE.replace(from, to).as_bytes()).unwrap_err().to_string();
        let e = bad("\"category_id\": 3", "\"category_id\": 9");
        assert!(e.contains("annotation 1") && e.contains("category_id 9"), "{e}");
        let e = bad("[10, 20, 100, 50]", "[950, 20, 100, 50]");
        assert!(e.contains("annotation 1") && e.contains("outside its image 10"), "{e}");
        let e = bad("\"image_id\": 11", "\"image_id\": 12");
        assert!(e.contains("annotation 2") && e.contains("image_id 12"), "{e}");
        let e = bad("paper_2.png", "paper.png");
        assert!(e.contains("image 10") && e.contains("cannot be told"), "{e}");
        let e = bad("\"page_no\": 1", "\"page_no\": 2");
        assert!(e.contains("given twice"), "{e}");
        assert!(bad("\"images\"", "\"imgs\"").contains("images"));
    }

    #[test]
    fn page_numbers_come_from_the_end_of_the_name() {
        assert_eq!(page_of_name("report-0007.jpg"), Some(7));
        assert_eq!(page_of_name("a/b3/12.png"), Some(12));
        assert_eq!(page_of_name("doc.pdf_4.jpg"), Some(4));
        assert_eq!(page_of_name("cover.png"), None);
    }
}
