"""Times the official CDM implementations on the same pairs as `bench/cdm.sh`, reading the
official code where it lies (../shared/reference), never copying it.

Usage: cdm_reference.py omnidocbench|unimernet PAIRS.jsonl OUT.jsonl
Each input line has `gt` and `pred`; each output line adds `f1`. Prints one line
`reference <variant>: <n> pairs, <cpu> CPU-s` (CPU of this process and its children: TeX,
ImageMagick, node). Needs numpy<2, scipy, scikit-image 0.20, Pillow (and opencv-python for
UniMERNet's box extraction), node, TeX Live, and ImageMagick allowed to read PDF with a
`magick` name on PATH (bench/cdm.sh sets these up under /tmp).
"""
import importlib.util
import json
import os
import resource
import sys
import tempfile
import types

REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "reference")
REF = os.environ.get("CDM_REFERENCE", REF)


def cpu():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def load_package(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(path, "__init__.py"),
                                                  submodule_search_locations=[path])
    mod = types.ModuleType(name)
    mod.__path__ = [path]
    mod.__spec__ = spec
    sys.modules[name] = mod
    return mod


def omnidocbench(pairs, work):
    # cdm_metric.py sits in OmniDocBench's metrics/ beside the vendored cdm/ package.
    root = os.path.join(REF, "omnidocbench-cdm")
    load_package("odb_metrics", os.path.join(root, "metrics"))
    load_package("odb_metrics.cdm", os.path.join(root, "metrics", "cdm"))
    load_package("odb_metrics.cdm.modules", os.path.join(root, "metrics", "cdm", "modules"))
    load_package("odb_metrics.cdm.modules.tokenize_latex",
                 os.path.join(root, "metrics", "cdm", "modules", "tokenize_latex"))
    spec = importlib.util.spec_from_file_location("odb_metrics.cdm_metric", os.path.join(root, "cdm_metric.py"))
    m = importlib.util.module_from_spec(spec)
    sys.modules["odb_metrics.cdm_metric"] = m
    spec.loader.exec_module(m)
    cdm = m.CDM(output_root=work)
    out = []
    for i, (gt, pred) in enumerate(pairs):
        # _process_single_cdm_sample's stripping.
        gt = gt.lstrip("$$").rstrip("$$").strip().lstrip("$").rstrip("$").strip()
        pred = pred.split("```latex")[-1].split("```")[0]
        pred = pred.lstrip("$$").rstrip("$$").strip().lstrip("$").rstrip("$").strip()
        out.append(cdm.evaluate(gt, pred, str(i))["F1_score"])
    return out


def unimernet(pairs, work):
    root = os.path.join(REF, "unimernet-cdm", "cdm")
    sys.path.insert(0, root)
    os.chdir(root)  # modules.* imports
    ev = importlib.import_module("evaluation")
    colors = ev.gen_color_list(num=5800)
    for subset, idx in (("gt", 0), ("pred", 1)):
        out_path = os.path.join(work, "bench", subset)
        os.makedirs(os.path.join(out_path, "bbox"), exist_ok=True)
        os.makedirs(os.path.join(out_path, "vis"), exist_ok=True)
        tmp = os.path.join(work, "tmp_" + subset)
        os.makedirs(tmp, exist_ok=True)
        for i, p in enumerate(pairs):
            try:
                ev.latex2bbox_color((p[idx], "sample_%d" % i, out_path, tmp, colors))
            except Exception:
                pass
    res, _, _ = ev.evaluation(work, "bench")
    return [res["details"].get("sample_%d" % i, {}).get("F1_score") for i in range(len(pairs))]


def main():
    variant, src, dst = sys.argv[1:4]
    pairs = [(r["gt"], r["pred"]) for r in map(json.loads, open(src, encoding="utf-8"))]
    work = tempfile.mkdtemp(prefix="cdm-ref-")
    t0 = cpu()
    f1s = omnidocbench(pairs, work) if variant == "omnidocbench" else unimernet(pairs, work)
    used = cpu() - t0
    with open(dst, "w", encoding="utf-8") as f:
        for (gt, pred), f1 in zip(pairs, f1s):
            f.write(json.dumps({"gt": gt, "pred": pred, "f1": f1}, ensure_ascii=False) + "\n")
    print("reference %s: %d pairs, %.1f CPU-s" % (variant, len(pairs), used))


if __name__ == "__main__":
    main()
