#!/usr/bin/env bash
# corpus degrade (issue 50, docs/degrade.md): its speed, and the robustness table of real
# providers on the shared data.
#
#   bench/degrade.sh speed [N]        # pages/s of each profile on the first N (default 50)
#                                     # pdf-parse-bench table PDFs; target >= 20 pages/s per
#                                     # core at 200 dpi (the command runs on one core)
#   bench/degrade.sh robustness [PROVIDERS] [CAP] [DATASETS]
#                                     # PROVIDERS (default pdfium,layout,tesseract,rapidocr;
#                                     # presets installed by `corpus providers install`, one that
#                                     # cannot be is named and left out) on DATASETS (default
#                                     # papers,tables,omnidoc): the GROBID gold papers (paper
#                                     # suite; whole papers, fewest pages first, up to CAP pages),
#                                     # the first CAP pdf-parse-bench tables (table suite) and the
#                                     # first CAP OmniDocBench demo pages (omnidoc suite); CAP
#                                     # (default 4) pages per dataset. Each clean and under scan
#                                     # and photo (seed 1); writes `report --robustness` of each
#                                     # as CSV and prints one table (bench/degrade_table.py), and
#                                     # writes one page of each profile as PNG/JPEG, all under
#                                     # $OUT (default /tmp/degrade-bench)
#
# Data: ../shared/data (CORPUS_SHARED_DATA overrides). Builds the binary in the dev profile (the
# one the tests use; PROFILE=release for a release build), or takes CORPUS_BIN as it is.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data="${CORPUS_SHARED_DATA:-$repo/../shared/data}"
cd "$repo"
out="${OUT:-/tmp/degrade-bench}"
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/corpus-degrade-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The binary is copied, so that a build during a long run does not change it under the bench.
if [ -z "${CORPUS_BIN:-}" ]; then
    cargo build --quiet --bin corpus ${PROFILE:+--profile "$PROFILE"}
    CORPUS_BIN="$CARGO_TARGET_DIR/$([ "${PROFILE:-dev}" = dev ] && echo debug || echo "$PROFILE")/corpus"
fi
cp "$CORPUS_BIN" "$tmp/corpus"
bin="$tmp/corpus"
echo "bench: binary $CORPUS_BIN (profile ${PROFILE:-dev})" >&2

case "${1:-speed}" in
speed)
    n="${2:-50}"
    mkdir -p "$tmp/pdfs"
    ls "$data/pdf-parse-bench/tables/pdfs"/*.pdf | head -n "$n" | xargs -I{} cp {} "$tmp/pdfs/"
    db="$tmp/speed.db"
    "$bin" --db "$db" -q ingest --dataset src "$tmp/pdfs" >/dev/null
    pages=$("$bin" --db "$db" sql "SELECT sum(pages) AS p FROM v_documents" --format csv | tail -1)
    echo "bench: $n documents, $pages pages; load before: $(uptime | sed 's/.*load average/load average/')" >&2
    for p in 200dpi skew scan fax photo jpeg-50; do
        /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$bin" --db "$db" -q degrade --dataset src --profile "$p" >/dev/null
        read -r wall user sys <"$tmp/time"
        cpu=$(echo "$user + $sys" | bc)
        printf 'degrade %-8s %4d pages  wall %6.2f s  cpu %6.2f s  %6.1f pages/s wall  %6.1f pages per cpu-second\n' \
            "$p" "$pages" "$wall" "$cpu" "$(echo "$pages / $wall" | bc -l)" "$(echo "$pages / $cpu" | bc -l)"
    done
    echo "bench: load after: $(uptime | sed 's/.*load average/load average/')" >&2
    ;;
robustness)
    providers="${2:-pdfium,layout,tesseract,rapidocr}"
    cap="${3:-4}"
    datasets="${4:-papers,tables,omnidoc}"
    db="$tmp/robust.db"
    log="$out/logs"
    mkdir -p "$log"
    has() { [[ ",$datasets," == *",$1,"* ]]; }
    t0=$(date +%s)
    echo "bench: providers $providers; datasets $datasets; page cap $cap per dataset (papers: whole papers, fewest pages first, until the cap); load $(uptime | sed 's/.*load average: //')" >&2
    # Presets install through corpus's own mechanism (their pinned environments); one that does not
    # install or is not ready is named with why, and the bench goes on without it.
    ready=""
    for p in ${providers//,/ }; do
        case "$p" in
        pdfium | layout) ready="$ready,$p" ;;
        *)
            if "$bin" --db "$db" -q providers install "$p" >"$log/install-$p.log" 2>&1; then
                ready="$ready,$p"
            else
                echo "bench: $p CANNOT RUN here, left out: $(tail -3 "$log/install-$p.log" | tr '\n' ' ')" >&2
            fi
            ;;
        esac
    done
    providers="${ready#,}"
    if has omnidoc; then
        # The first $cap pages of the demo's truth file; the images stay where they are.
        python3 - "$data/omnidocbench/demo_data/omnidocbench_demo/OmniDocBench_demo.json" "$cap" "$tmp/omnidoc.json" <<'PY'
import json, sys
pages = json.load(open(sys.argv[1]))[: int(sys.argv[2])]
json.dump(pages, open(sys.argv[3], "w"))
PY
        "$bin" --db "$db" -q ingest --truth omnidocbench --dataset omnidoc \
            --images "$data/omnidocbench/demo_data/omnidocbench_demo/images" "$tmp/omnidoc.json" >/dev/null
    fi
    if has tables; then
        mkdir -p "$tmp/tables/pdfs" "$tmp/tables/ground_truth"
        for f in $(ls "$data/pdf-parse-bench/tables/pdfs" | head -n "$cap"); do
            cp "$data/pdf-parse-bench/tables/pdfs/$f" "$tmp/tables/pdfs/"
            cp "$data/pdf-parse-bench/tables/ground_truth/${f%.pdf}.json" "$tmp/tables/ground_truth/"
        done
        "$bin" --db "$db" -q ingest --truth latex-tables --dataset tables "$tmp/tables/pdfs" >/dev/null
    fi
    if has papers; then
        # Page counts from a scratch store; then whole papers, fewest pages first, up to the cap
        # (at least one), with the TEI files that belong to them.
        "$bin" --db "$tmp/pages.db" -q ingest --dataset all "$data/grobid-gold/pdf" >/dev/null
        mkdir -p "$tmp/grobid/pdf" "$tmp/grobid/tei"
        total=0
        while IFS=, read -r name pages; do
            if [ "$total" -gt 0 ] && [ $((total + pages)) -gt "$cap" ]; then break; fi
            total=$((total + pages))
            stem="$name"
            ln -s "$data/grobid-gold/pdf/$stem.pdf" "$tmp/grobid/pdf/"
            for t in "$data/grobid-gold/tei/"*"__$stem.training."*; do ln -s "$t" "$tmp/grobid/tei/"; done
        done < <("$bin" --db "$tmp/pages.db" sql "SELECT document, pages FROM v_documents ORDER BY pages, document" --format csv | tail -n +2)
        echo "bench: papers: $(ls "$tmp/grobid/pdf" | tr '\n' ' ')($total pages)" >&2
        "$bin" --db "$db" -q ingest --truth grobid-tei --dataset papers "$tmp/grobid/pdf" >/dev/null
    fi
    "$bin" --db "$db" sql "SELECT dataset, count(*) AS documents, sum(pages) AS pages FROM v_documents GROUP BY 1 ORDER BY 1" | sed 's/^/bench: /' >&2
    # OmniDocBench's pages are images, which PDF readers (pdfium, the tesseract and rapidocr
    # presets) do not open: their clean side is an undamaged image-only PDF twin (noise of 0
    # grey levels).
    base() { if [ "$1" = omnidoc ]; then echo "omnidoc~noise:sigma=0"; else echo "$1"; fi; }
    if has omnidoc; then
        "$bin" --db "$db" -q degrade --dataset omnidoc --profile noise:sigma=0 >/dev/null
    fi
    for d in ${datasets//,/ }; do
        ds=$(base "$d")
        "$bin" --db "$db" -q degrade --dataset "$ds" --profile scan,photo --seed 1 >/dev/null
        for v in "$ds" "$ds~scan" "$ds~photo"; do
            for p in ${providers//,/ }; do
                s=$(date +%s)
                "$bin" --db "$db" -q ocr -j 2 --timeout 900 --provider "$p" --dataset "$v" >"$log/ocr-$p-$v.log" 2>&1 ||
                    echo "bench: $p on $v: some documents failed (exit $?): $(tail -2 "$log/ocr-$p-$v.log" | tr '\n' ' ')" >&2
                echo "bench: ocr $p on $v: $(($(date +%s) - s)) s" >&2
            done
        done
    done
    suite_of() { case "$1" in omnidoc) echo omnidoc ;; tables) echo table ;; papers) echo paper ;; esac; }
    for d in ${datasets//,/ }; do
        ds=$(base "$d")
        for v in "$ds" "$ds~scan" "$ds~photo"; do
            for p in ${providers//,/ }; do
                "$bin" --db "$db" -q eval --suite "$(suite_of "$d")" --provider "$p" --dataset "$v" >"$log/eval-$p-$v.log" 2>&1 ||
                    echo "bench: eval $(suite_of "$d") $p on $v: exit $? (see $log/eval-$p-$v.log)" >&2
            done
        done
        for prof in scan photo; do
            "$bin" --db "$db" -q report --suite "$(suite_of "$d")" --robustness "$ds~$prof" --format csv \
                >"$out/robustness-$d-$prof.csv" 2>"$log/report-$d-$prof.log" ||
                echo "bench: report --robustness $ds~$prof: $(tail -2 "$log/report-$d-$prof.log" | tr '\n' ' ')" >&2
        done
    done
    "$bin" --db "$db" sql "SELECT provider, count(*) AS failed, substr(min(error), 1, 160) AS first_error FROM outputs WHERE status = 'error' GROUP BY provider" | sed 's/^/bench: failures: /' >&2
    # One table: per data set, provider and its headline metric, clean, scan and photo.
    python3 "$repo/bench/degrade_table.py" "$out" "$datasets" "$providers" "$cap"
    # The first page of one twin of each profile, as the twin stores it, for looking at.
    if has omnidoc; then
        for p in fax skew jpeg-20 100dpi blur noise ink; do
            "$bin" --db "$db" -q degrade --dataset "omnidoc~noise:sigma=0" --profile "$p" --seed 1 >/dev/null
        done
        python3 "$repo/bench/degrade_pictures.py" "$db" "$out"
    fi
    cp "$db" "$out/robustness.db"
    echo "bench: $(($(date +%s) - t0)) s in all; the store is $out/robustness.db, logs in $log" >&2
    ;;
*)
    echo "usage: bench/degrade.sh speed [N] | robustness [PROVIDERS] [CAP] [DATASETS]" >&2
    exit 2
    ;;
esac
