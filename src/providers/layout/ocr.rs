//! PP-OCRv4 text detection (DB) and recognition (SVTR + CTC) for pages with no text layer,
//! after rapidocr-onnxruntime 1.4.4. Text on rendered PDF pages is upright and horizontal, so
//! detected regions are taken as axis-aligned boxes (the package fits rotated rectangles) and
//! the 0/180 orientation classifier is not run.

use crate::providers::raster::Bgr;

/// Detection: the shorter side is brought up to this (rapidocr `limit_type: min`).
pub const LIMIT_SIDE: usize = 736;
const THRESH: f32 = 0.3;
const BOX_THRESH: f32 = 0.5;
const UNCLIP: f32 = 1.6;
const MIN_SIZE: f32 = 3.0;
const MAX_CANDIDATES: usize = 1000;
/// Recognition input height and minimum width.
pub const REC_H: usize = 48;
const REC_W: usize = 320;
/// Lines per recognition batch (rapidocr's `rec_batch_num`).
pub const REC_BATCH: usize = 6;
/// Recognised lines under this mean character score are dropped (`text_score`).
const TEXT_SCORE: f32 = 0.5;

/// Returns the detector input size for an image: the rapidocr resize rule.
pub(crate) fn det_size(w: usize, h: usize) -> (usize, usize) {
    // f64 arithmetic and round-half-to-even, as Python's.
    let ratio = if w.min(h) < LIMIT_SIDE { LIMIT_SIDE as f64 / w.min(h) as f64 } else { 1.0 };
    // Python's round: halves to even.
    let r32 = |v: usize| {
        ((((v as f64 * ratio) as usize) as f64 / 32.0).round_ties_even() as usize * 32).max(32)
    };
    (r32(w), r32(h))
}

/// Writes the detector input for `img` at `(w, h)` from [`det_size`].
pub(crate) fn det_preprocess(img: &Bgr, w: usize, h: usize, out: &mut [f32]) {
    img.resize(w, h).write_planar([0.5; 3], [0.5; 3], false, out, w, h);
}

/// Text boxes from the probability map (`map_w x map_h`), in pixels of the original image,
/// sorted top to bottom then left to right as rapidocr sorts them.
pub(crate) fn det_boxes(
    prob: &[f32],
    map_w: usize,
    map_h: usize,
    orig_w: usize,
    orig_h: usize,
) -> Vec<[f32; 4]> {
    // Binarise, then dilate with a 2x2 kernel (anchor at its centre: up and left).
    let bin: Vec<bool> = prob.iter().map(|&p| p > THRESH).collect();
    let mut mask = vec![false; bin.len()];
    for y in 0..map_h {
        for x in 0..map_w {
            let at = |xx: usize, yy: usize| bin[yy * map_w + xx];
            mask[y * map_w + x] = at(x, y)
                || (x > 0 && at(x - 1, y))
                || (y > 0 && at(x, y - 1))
                || (x > 0 && y > 0 && at(x - 1, y - 1));
        }
    }
    let mut boxes = Vec::new();
    let mut label = vec![0u32; mask.len()];
    let mut next = 0u32;
    let mut stack = Vec::new();
    for start in 0..mask.len() {
        if !mask[start] || label[start] != 0 {
            continue;
        }
        next += 1;
        if next as usize > MAX_CANDIDATES {
            break;
        }
        label[start] = next;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % map_w, i / map_w);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if nx < 0 || ny < 0 || nx >= map_w as i64 || ny >= map_h as i64 {
                        continue;
                    }
                    let j = ny as usize * map_w + nx as usize;
                    if mask[j] && label[j] == 0 {
                        label[j] = next;
                        stack.push(j);
                    }
                }
            }
        }
        // The contour's rectangle runs through pixel centres: a 1-pixel blob has size 0.
        let (w, h) = ((x1 - x0) as f32, (y1 - y0) as f32);
        if w.min(h) < MIN_SIZE {
            continue;
        }
        // Mean probability inside the rectangle (box_score_fast).
        let mut sum = 0.0f64;
        for yy in y0..=y1 {
            sum +=
                prob[yy * map_w + x0..=yy * map_w + x1].iter().map(|&p| f64::from(p)).sum::<f64>();
        }
        let score = sum / ((x1 - x0 + 1) * (y1 - y0 + 1)) as f64;
        if (score as f32) < BOX_THRESH {
            continue;
        }
        // Unclip: grow by area * ratio / perimeter on every side.
        let d = w * h * UNCLIP / (2.0 * (w + h));
        let (bw, bh) = (w + 2.0 * d, h + 2.0 * d);
        if bw.min(bh) < MIN_SIZE + 2.0 {
            continue;
        }
        // np.round(x / width * dest_width), in f32 as numpy computes it for these arrays.
        let fx =
            |v: f32| (v / map_w as f32 * orig_w as f32).round_ties_even().clamp(0.0, orig_w as f32);
        let fy =
            |v: f32| (v / map_h as f32 * orig_h as f32).round_ties_even().clamp(0.0, orig_h as f32);
        let b = [fx(x0 as f32 - d), fy(y0 as f32 - d), fx(x1 as f32 + d), fy(y1 as f32 + d)];
        // filter_tag_det_res: clip to the last pixel, drop slivers of 3 px or less.
        let b = [
            b[0].min(orig_w as f32 - 1.0),
            b[1].min(orig_h as f32 - 1.0),
            b[2].min(orig_w as f32 - 1.0),
            b[3].min(orig_h as f32 - 1.0),
        ];
        if (b[2] - b[0]) as i64 <= 3 || (b[3] - b[1]) as i64 <= 3 {
            continue;
        }
        boxes.push(b);
    }
    sort_boxes(&mut boxes);
    boxes
}

/// rapidocr's `sorted_boxes`: by top edge, then swapping neighbours on the same line (tops
/// within 10 px) into left-to-right order.
fn sort_boxes(boxes: &mut [[f32; 4]]) {
    boxes.sort_by(|a, b| a[1].total_cmp(&b[1]).then(a[0].total_cmp(&b[0])));
    for i in 0..boxes.len().saturating_sub(1) {
        let mut j = i;
        while j < boxes.len() - 1 {
            if (boxes[j + 1][1] - boxes[j][1]).abs() < 10.0 && boxes[j + 1][0] < boxes[j][0] {
                boxes.swap(j, j + 1);
                if j == 0 {
                    break;
                }
                j -= 1;
            } else {
                break;
            }
        }
    }
}

/// The crop a box is recognised from: integer size as rapidocr computes it, turned upright
/// when it is much taller than wide.
pub(crate) fn line_crop(img: &Bgr, b: &[f32; 4]) -> Bgr {
    let (x0, y0) = (b[0].max(0.0) as usize, b[1].max(0.0) as usize);
    let w = ((b[2] - b[0]) as usize).max(1);
    let h = ((b[3] - b[1]) as usize).max(1);
    let crop = img.crop(x0, y0, x0 + w, y0 + h);
    if crop.height as f32 / crop.width.max(1) as f32 >= 1.5 {
        crop.rot90()
    } else {
        crop
    }
}

/// Writes a batch of line crops as the recogniser input `[n, 3, 48, W]`; returns W.
pub(crate) fn rec_preprocess(crops: &[&Bgr], out: &mut Vec<f32>) -> usize {
    let mut max_ratio = REC_W as f64 / REC_H as f64;
    for c in crops {
        max_ratio = max_ratio.max(c.width as f64 / c.height.max(1) as f64);
    }
    let width = (REC_H as f64 * max_ratio) as usize;
    out.clear();
    out.resize(crops.len() * 3 * REC_H * width, 0.0);
    for (i, c) in crops.iter().enumerate() {
        let ratio = c.width as f64 / c.height.max(1) as f64;
        let rw = ((REC_H as f64 * ratio).ceil() as usize).clamp(1, width);
        let slot = &mut out[i * 3 * REC_H * width..(i + 1) * 3 * REC_H * width];
        c.resize(rw, REC_H).write_planar([0.5; 3], [0.5; 3], false, slot, width, REC_H);
    }
    width
}

/// Greedy CTC over one line's `[T, K]` scores: best class per step, repeats merged, blanks
/// (0) dropped. `dict` is the model's characters; index i + 1 is `dict[i]`, and K - 1 is a
/// space. Returns the text and its mean character score, or `None` under the text score.
pub(crate) fn ctc(scores: &[f32], k: usize, dict: &[String]) -> Option<(String, f32)> {
    let mut text = String::new();
    let mut sum = 0.0;
    let mut n = 0;
    let mut prev = usize::MAX;
    for step in scores.chunks_exact(k) {
        let mut best = 0;
        for (i, &p) in step.iter().enumerate() {
            if p > step[best] {
                best = i;
            }
        }
        if best != 0 && best != prev {
            match dict.get(best - 1) {
                Some(c) => text.push_str(c),
                None => text.push(' '),
            }
            sum += step[best];
            n += 1;
        }
        prev = best;
    }
    let score = if n == 0 { 0.0 } else { sum / n as f32 };
    (score >= TEXT_SCORE && !text.is_empty()).then_some((text, score))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn det_size_follows_the_rapidocr_rule() {
        // 150 dpi letter page: shorter side >= 736, so only rounding to 32.
        assert_eq!(det_size(1275, 1650), (1280, 1664));
        // A small image is brought up to 736 on its shorter side.
        assert_eq!(det_size(368, 500), (736, 992));
    }

    #[test]
    fn one_blob_becomes_one_grown_box() {
        let (w, h) = (64, 32);
        let mut p = vec![0.0f32; w * h];
        for y in 10..20 {
            for x in 10..50 {
                p[y * w + x] = 0.9;
            }
        }
        let b = det_boxes(&p, w, h, 128, 64);
        assert_eq!(b.len(), 1);
        // Dilated blob 10..=50 x 10..=20: w 40, h 10, d = 400*1.6/100 = 6.4.
        let want: [f32; 4] =
            [2.0 * (10.0 - 6.4), 2.0 * (10.0 - 6.4), 2.0 * (50.0 + 6.4), 2.0 * (20.0 + 6.4)];
        for (g, w) in b[0].iter().zip(want) {
            assert!((g - w.round()).abs() <= 1.0, "{:?}", b[0]);
        }
    }

    #[test]
    fn ctc_merges_repeats_and_drops_blanks() {
        let dict: Vec<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        // K = 4: blank, a, b, space.  a a blank a b space b
        let seq = [1usize, 1, 0, 1, 2, 3, 2];
        let mut s = vec![0.0f32; seq.len() * 4];
        for (t, &i) in seq.iter().enumerate() {
            s[t * 4 + i] = 0.9;
        }
        assert_eq!(ctc(&s, 4, &dict).unwrap().0, "aab b");
        assert!(ctc(&[0.9, 0.0, 0.0, 0.0], 4, &dict).is_none());
    }

    #[test]
    fn boxes_on_one_line_read_left_to_right() {
        let mut b =
            vec![[100.0, 12.0, 150.0, 30.0], [10.0, 15.0, 60.0, 30.0], [10.0, 50.0, 60.0, 70.0]];
        sort_boxes(&mut b);
        assert_eq!(b.iter().map(|x| x[0]).collect::<Vec<_>>(), vec![10.0, 100.0, 10.0]);
    }
}
