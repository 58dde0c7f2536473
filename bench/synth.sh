#!/usr/bin/env bash
# `corpus synth` speed: pages per second from LaTeX sources to stored documents with truth
# (reading and checking every item, planning, compiling, writing, ingesting), on the table
# LaTeX of pdf-parse-bench (`ground_truth/*.json` as sources), with --jobs parallel pdflatex
# runs; beside it, in the same run, the floor: the finished pages' own LaTeX (tex/*.tex)
# compiled once each by plain pdflatex with the same parallelism. The ratio says what the
# probe run, the item checks and the store cost on top of one compile per page.
#
#   bench/synth.sh [--pages N] [--jobs N] [--generate]
#
# Target (issue 17): >= 3 pages/s on 2 cores. Builds `corpus` in the shared dev profile
# (CARGO_TARGET_DIR is honoured). DATA defaults to ../shared/data; with --generate (or
# without the data) items come from the generator instead. CPU seconds from /usr/bin/time.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

pages=100
jobs=2
generate=0
while [ $# -gt 0 ]; do
  case $1 in
    --pages) pages=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --generate) generate=1; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v pdflatex >/dev/null || { echo "bench: SKIP: pdflatex is absent (Debian texlive-latex-extra, texlive-fonts-recommended)" >&2; exit 0; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed for CPU seconds" >&2; exit 2; }

src="${DATA:-../shared/data}/pdf-parse-bench/tables/ground_truth"
if [ "$generate" = 1 ] || [ ! -d "$src" ]; then
  from=(--generate)
  what="generated tables"
else
  from=(--from "$src")
  what="tables of $src"
fi

echo "bench: building corpus (dev profile) ..." >&2
cargo build -q --bin corpus
exe="$CARGO_TARGET_DIR/debug/corpus"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/time -f '%e %U %S' -o "$work/time" "$exe" --db "$work/s.db" -q synth tables "${from[@]}" \
  --pages "$pages" --seed 1 --jobs "$jobs" --out "$work/pages" --dataset bench --format json >"$work/out.json"
read -r wall user sys <"$work/time"
made=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["pages"])' "$work/out.json")
runs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["tex_runs"])' "$work/out.json")

# The floor: each finished page's LaTeX compiled once, same parallelism.
mkdir -p "$work/floor"
cp "$work"/pages/tex/*.tex "$work/floor/"
/usr/bin/time -f '%e %U %S' -o "$work/time2" bash -c \
  'cd "$1" && ls *.tex | SOURCE_DATE_EPOCH=1767225600 xargs -P "$2" -n 1 pdflatex -interaction=nonstopmode -halt-on-error >/dev/null' \
  _ "$work/floor" "$jobs"
read -r fwall fuser fsys <"$work/time2"

python3 - "$made" "$wall" "$user" "$sys" "$fwall" "$fuser" "$fsys" "$jobs" "$runs" "$what" <<'PY'
import sys
made, wall, user, sys_, fwall, fuser, fsys = map(float, sys.argv[1:8])
jobs, runs, what = sys.argv[8], sys.argv[9], sys.argv[10]
rate, cpu = made / wall, made / (user + sys_)
frate, fcpu = made / fwall, made / (fuser + fsys)
print(f"corpus synth tables, {what}: {made:.0f} pages in {wall:.1f} s with --jobs {jobs} = {rate:.2f} pages/s, {cpu:.2f} pages per CPU-second ({runs} pdflatex runs)")
print(f"floor (each page's LaTeX compiled once, same jobs): {frate:.2f} pages/s, {fcpu:.2f} pages per CPU-second")
print(f"ratio synth / floor: {rate / frate:.2f} (wall), {cpu / fcpu:.2f} (CPU); target >= 3 pages/s: {'met' if rate >= 3 else 'NOT met'}")
PY
