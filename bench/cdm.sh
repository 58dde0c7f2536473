#!/usr/bin/env bash
# CDM speed: CPU-seconds per pair (this process and every TeX/Ghostscript child), cold (a
# fresh render cache) and warm (every render cached: 0 renders), over the formula study's 125
# pairs (UniMERNet's variant) and OmniDocBench's 13 demo pairs (OmniDocBench's variant),
# beside the official implementation timed in the same run where it can be set up (a venv
# under /tmp with the official requirements, `magick` as IM6's convert, ImageMagick allowed
# to read PDF); otherwise the spec's measured 5.6 CPU-s per pair is cited. Target: >= 20x
# faster cold. Needs ../shared/data and ../shared/reference.
#
# Usage: bench/cdm.sh [--no-reference]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${CORPUS_SHARED:-../shared}
out=bench/out/cdm
mkdir -p "$out"
cargo build -q --bin corpus
bin=${CARGO_TARGET_DIR:-target}/debug/corpus

python3 - "$shared" "$out" <<'PY'
import json, sys
shared, out = sys.argv[1:3]
rows = json.load(open(f"{shared}/data/formula-metric-study/formulas-dev.json"))
with open(f"{out}/study.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps({"gt": r["gt_formula"], "pred": r["extracted_formula"],
                            "official": r["metrics"]["cdm_score"]}, ensure_ascii=False) + "\n")
demo = json.load(open(f"{shared}/data/omnidocbench/result-v1.5-cdm/display_formula_cdm.json"))
with open(f"{out}/demo.jsonl", "w") as f:
    for r in demo["pairs"]:
        f.write(json.dumps({"gt": r["gt_fed_to_cdm"], "pred": r["pred_fed_to_cdm"],
                            "official": r["F1_score"]}, ensure_ascii=False) + "\n")
PY

# CPU-seconds of a command and its children.
# (GNU time writes "Command exited with non-zero status N" first when the command fails.)
cpu() { /usr/bin/time -f "%U %S" -o "$out/time" "$@" >/dev/null 2>"$out/stderr" || true; tail -n 1 "$out/time" | awk '{print $1 + $2}'; }
# Share of lines whose score equals the official one, and the mean |diff|.
agree() {
    python3 - "$1" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
d = [abs((r.get("score") or 0) - r["official"]) for r in rows]
print(f"{sum(x == 0 for x in d)}/{len(d)} equal to the official, mean |diff| {sum(d)/len(d):.4f}")
PY
}

declare -A ours
for set in study:unimernet demo:omnidocbench; do
    name=${set%%:*}; variant=${set#*:}
    n=$(wc -l < "$out/$name.jsonl")
    rm -f "$out/$name.db"*
    cold=$(cpu "$bin" score --metric cdm --cdm "$variant" --cache "$out/$name.db" -o "$out/$name.scored.jsonl" "$out/$name.jsonl")
    grep -o '([a-z]*, [0-9]* rendered)' "$out/stderr" | sed 's/^/cold: /' || true
    warm=$(cpu "$bin" score --metric cdm --cdm "$variant" --cache "$out/$name.db" -o "$out/$name.warm.jsonl" "$out/$name.jsonl")
    grep -o '([a-z]*, [0-9]* rendered)' "$out/stderr" | sed 's/^/warm: /' || true
    ours[$name]=$(python3 -c "print($cold / $n)")
    printf 'corpus %-12s %3d pairs: cold %.3f CPU-s/pair, warm %.4f CPU-s/pair; %s\n' \
        "$variant" "$n" "$(python3 -c "print($cold / $n)")" "$(python3 -c "print($warm / $n)")" \
        "$(agree "$out/$name.scored.jsonl")"
done

reference_ok=0
if [ "${1:-}" != "--no-reference" ]; then
    venv=${CDM_REFERENCE_VENV:-/tmp/cdm-reference-venv}
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv" && "$venv/bin/pip" install -q numpy==1.24.4 scipy==1.10.1 \
            scikit-image==0.20.0 Pillow==10.4.0 opencv-python-headless==4.8.1.78 tqdm matplotlib || true
    fi
    mkdir -p /tmp/cdm-reference-bin
    [ -e /tmp/cdm-reference-bin/magick ] || ln -s "$(command -v convert)" /tmp/cdm-reference-bin/magick
    if grep -q 'rights="none" pattern="PDF"' /etc/ImageMagick-6/policy.xml 2>/dev/null; then
        echo "reference: ImageMagick may not read PDF (/etc/ImageMagick-6/policy.xml); enable it to time the official code" >&2
    elif "$venv/bin/python" -c "import numpy, scipy, skimage, PIL, cv2" 2>/dev/null; then
        reference_ok=1
        for set in demo:omnidocbench study:unimernet; do
            name=${set%%:*}; variant=${set#*:}
            n=$(wc -l < "$out/$name.jsonl")
            ref=$(cpu env PATH="/tmp/cdm-reference-bin:$PATH" "$venv/bin/python" bench/cdm_reference.py "$variant" "$out/$name.jsonl" "$out/$name.reference.jsonl")
            printf 'official %-10s %3d pairs: %.3f CPU-s/pair; corpus is %.1fx faster cold\n' \
                "$variant" "$n" "$(python3 -c "print($ref / $n)")" "$(python3 -c "print($ref / $n / ${ours[$name]})")"
        done
    fi
fi
if [ "$reference_ok" = 0 ]; then
    for name in study demo; do
        printf 'official (spec, measured earlier): 5.6 CPU-s/pair; corpus %s is %.1fx faster cold\n' \
            "$name" "$(python3 -c "print(5.6 / ${ours[$name]})")"
    done
fi
