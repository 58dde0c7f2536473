#!/usr/bin/env bash
# The HTML report over many documents: N variants of each sample paper (the PDF with a
# comment appended after %%EOF, so each is a document of its own; the same PeerRead truth),
# read by pdfium and scored by the paper suite; then `report --format html` with a cold and a
# warm page-image cache. Prints wall seconds, ms per document and peak resident memory of
# each run (GNU time), to show the site is written in bounded memory.
# Usage: bench/html_scale.sh [N_PER_PAPER] [OUT_DIR]     (default 334: 1,002 documents)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-334}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
if [ -n "${2:-}" ]; then
    out=$2
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
[ -x /usr/bin/time ] || { echo "html_scale: needs GNU time (/usr/bin/time)" >&2; exit 1; }
. bench/exe.sh
bin=$(exe "$out" --bin corpus) || exit 1
export CORPUS_DB="$out/scale.db"
export CORPUS_PAGE_IMAGES="$out/page-images"
rm -rf "$CORPUS_DB" "$CORPUS_DB-wal" "$CORPUS_DB-shm" "$CORPUS_PAGE_IMAGES" "$out/papers" "$out/site-"*
mkdir -p "$out/papers"
for pdf in tests/fixtures/papers/*.pdf; do
    stem=$(basename "$pdf" .pdf)
    for k in $(seq 1 "$n"); do
        { cat "$pdf"; printf '%%variant %d\n' "$k"; } >"$out/papers/$stem-v$k.pdf"
        cp "$pdf.json" "$out/papers/$stem-v$k.pdf.json"
    done
done
"$bin" -q ingest "$out/papers" --dataset scale --truth peerread
"$bin" -q ocr --provider pdfium --jobs 2
"$bin" -q eval --suite paper --provider pdfium >/dev/null
docs=$(ls "$out/papers"/*.pdf | wc -l)
printf '%-5s %6s %9s %8s %12s\n' cache docs seconds ms/doc "peak RSS MB"
for run in cold warm; do
    /usr/bin/time -f '%e %M' -o "$out/time-$run" \
        "$bin" -q report --suite paper --format html -o "$out/site-$run"
    read -r secs kb <"$out/time-$run"
    python3 -c "import sys; s=float(sys.argv[2]); d=int(sys.argv[3]); print(f'{sys.argv[1]:<5} {d:>6} {s:>9.2f} {1000*s/d:>8.1f} {int(sys.argv[4])/1024:>12.0f}')" \
        "$run" "$secs" "$docs" "$kb"
done
du -sh "$CORPUS_PAGE_IMAGES" | sed 's/^/page-image cache: /'
