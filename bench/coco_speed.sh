#!/usr/bin/env bash
# Issue 49's speed target: the detection suite's COCO evaluation of 10,000 pages x 50 boxes
# (truth and detections each, 11 categories) in <= 10 s on this machine (wall and CPU seconds
# printed; the target and the ratio use CPU seconds, since this machine is shared), beside
# pycocotools' COCOeval (evaluate + accumulate + summarize, CPU seconds, the same boxes) as a
# ratio, and
# the two mAP / AP50 / AR@100 figures side by side (they must be equal).
#
#   bench/coco_speed.sh [PAGES] [BOXES]
#
# pycocotools is the pinned one the tests use ($CORPUS_COCO_PYTHON, or the venv scripts/test.sh
# makes under ~/.cache/corpus/coco-venv).
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
cd "$(dirname "$0")/.."
. bench/exe.sh
pages=${1:-10000}
boxes=${2:-50}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python=${CORPUS_COCO_PYTHON:-$HOME/.cache/corpus/coco-venv/bin/python}
bin=$(exe "$work" --example bench_coco) || exit 1
out=$("$bin" "$pages" "$boxes" "$work/sets.json")
echo "$out" | grep -v '^corpus_seconds='
ours=$(echo "$out" | sed -n 's/^corpus_seconds=//p')
if ! "$python" -c 'import pycocotools' 2>/dev/null; then
    echo "coco_speed: no pycocotools at $python (scripts/test.sh installs it); no ratio" >&2
    exit 0
fi
"$python" bench/coco_reference.py <"$work/sets.json" >"$work/ref.json"
python3 - "$work/ref.json" "$ours" <<'PY'
import json, sys
ref = json.load(open(sys.argv[1]))
ours = float(sys.argv[2])
s = ref["results"][0]["stats"]
print(f"pycocotools: {ref['cpu_s']:.2f} CPU s, mAP {s[0]:.6f}, AP50 {s[1]:.6f}, AR@100 {s[8]:.6f}")
print(f"ratio: corpus is {ref['cpu_s'] / ours:.1f}x pycocotools (CPU s: {ours:.2f} against {ref['cpu_s']:.2f})")
print(f"target <= 10 s: {'met' if ours <= 10 else 'NOT met'} ({ours:.2f} CPU s)")
PY
