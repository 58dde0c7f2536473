#!/usr/bin/env python3
"""pycocotools' COCOeval (iouType 'bbox', default parameters) on page sets given as JSON.

Reads from stdin a list of page sets, each
    {"categories": [id, ...],
     "images": [{"gts": [{"category", "bbox": [x, y, w, h], "area", "crowd"}],
                 "dts": [{"category", "bbox", "score"}]}]}
and writes to stdout, per set, {"stats": [12 figures], "per_category": [{"category", "ap",
"ap50", "ap75", "ar100"}]}, where a figure is null where COCOeval gives -1. Per-category
figures are COCOeval.summarize's means taken over one category. Images get ids 1, 2, ... in
the given order, annotations ids from 1, detections in the given order (loadRes numbers them).
Used by tests/it/detection.rs and bench/coco_speed.sh; needs pycocotools (pinned there).
"""
import contextlib
import io
import json
import sys
import time

import numpy as np
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval


def mean_defined(s):
    s = s[s > -1]
    return None if s.size == 0 else float(np.mean(s))


def evaluate(page_set):
    images, anns, dets = [], [], []
    for i, img in enumerate(page_set["images"], start=1):
        images.append({"id": i, "width": 10000, "height": 10000})
        for g in img["gts"]:
            anns.append({"id": len(anns) + 1, "image_id": i, "category_id": g["category"],
                         "bbox": g["bbox"], "area": g["area"], "iscrowd": int(g["crowd"])})
        for d in img["dts"]:
            dets.append({"image_id": i, "category_id": d["category"], "bbox": d["bbox"],
                         "score": d["score"]})
    cats = [{"id": c, "name": str(c)} for c in page_set["categories"]]
    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO()
        gt.dataset = {"images": images, "annotations": anns, "categories": cats}
        gt.createIndex()
        dt = gt.loadRes(dets)
        ev = COCOeval(gt, dt, iouType="bbox")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    stats = [None if v == -1 else float(v) for v in ev.stats]
    p, prec, rec = ev.params, ev.eval["precision"], ev.eval["recall"]
    t50 = np.where(0.5 == p.iouThrs)[0]
    t75 = np.where(0.75 == p.iouThrs)[0]
    per = []
    for k, c in enumerate(p.catIds):
        per.append({"category": int(c),
                    "ap": mean_defined(prec[:, :, k, 0, -1]),
                    "ap50": mean_defined(prec[t50, :, k, 0, -1]),
                    "ap75": mean_defined(prec[t75, :, k, 0, -1]),
                    "ar100": mean_defined(rec[:, k, 0, -1])})
    return {"stats": stats, "per_category": per}


def main():
    sets = json.load(sys.stdin)
    start = time.process_time()
    out = [evaluate(s) for s in sets]
    print(json.dumps({"cpu_s": time.process_time() - start, "results": out}))


if __name__ == "__main__":
    main()
