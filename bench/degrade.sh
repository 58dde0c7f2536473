#!/usr/bin/env bash
# corpus degrade (issue 50, docs/degrade.md): its speed, and the robustness table of real
# providers on the shared data.
#
#   bench/degrade.sh speed [N]        # pages/s of each profile on the first N (default 50)
#                                     # pdf-parse-bench table PDFs; target >= 20 pages/s per
#                                     # core at 200 dpi (the command runs on one core)
#   bench/degrade.sh robustness [PROVIDERS] [LIMIT] [DATASETS]
#                                     # PROVIDERS (default pdfium,tesseract,layout) on DATASETS
#                                     # (default omnidoc,tables,papers): the OmniDocBench demo
#                                     # (omnidoc suite), the first LIMIT (default 10)
#                                     # pdf-parse-bench tables (table suite) and the GROBID gold
#                                     # papers (paper suite), clean and under scan and photo;
#                                     # prints
#                                     # `report --robustness` for each, and writes one page of
#                                     # each profile as PNG under $OUT (default /tmp/degrade-bench)
#
# Data: ../shared/data (CORPUS_SHARED_DATA overrides). Builds the binary (dev profile, the
# one the tests use).
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data="${CORPUS_SHARED_DATA:-$repo/../shared/data}"
cd "$repo"
cargo build --quiet --bin corpus
bin="$CARGO_TARGET_DIR/debug/corpus"
out="${OUT:-/tmp/degrade-bench}"
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/corpus-degrade-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

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
    providers="${2:-pdfium,tesseract,layout}"
    limit="${3:-10}"
    datasets="${4:-omnidoc,tables,papers}"
    db="$tmp/robust.db"
    has() { [[ ",$datasets," == *",$1,"* ]]; }
    if has omnidoc; then
        "$bin" --db "$db" -q ingest --truth omnidocbench --dataset omnidoc \
            "$data/omnidocbench/demo_data/omnidocbench_demo/OmniDocBench_demo.json" >/dev/null
    fi
    if has tables; then
        mkdir -p "$tmp/tables/pdfs" "$tmp/tables/ground_truth"
        for f in $(ls "$data/pdf-parse-bench/tables/pdfs" | head -n "$limit"); do
            cp "$data/pdf-parse-bench/tables/pdfs/$f" "$tmp/tables/pdfs/"
            cp "$data/pdf-parse-bench/tables/ground_truth/${f%.pdf}.json" "$tmp/tables/ground_truth/"
        done
        "$bin" --db "$db" -q ingest --truth latex-tables --dataset tables "$tmp/tables/pdfs" >/dev/null
    fi
    if has papers; then
        "$bin" --db "$db" -q ingest --truth grobid-tei --dataset papers "$data/grobid-gold/pdf" >/dev/null
    fi
    # OmniDocBench's pages are images, which PDF readers (pdfium, tesseract's preset) do not
    # open: their clean side is an undamaged image-only PDF twin (noise of 0 grey levels).
    base() { if [ "$1" = omnidoc ]; then echo "omnidoc~noise:sigma=0"; else echo "$1"; fi; }
    if has omnidoc; then
        "$bin" --db "$db" -q degrade --dataset omnidoc --profile noise:sigma=0 >/dev/null
    fi
    for d in ${datasets//,/ }; do
        ds=$(base "$d")
        "$bin" --db "$db" degrade --dataset "$ds" --profile scan,photo --seed 1
        for v in "$ds" "$ds~scan" "$ds~photo"; do
            for p in ${providers//,/ }; do
                "$bin" --db "$db" -q ocr --provider "$p" --dataset "$v" || echo "bench: $p on $v failed (exit $?)" >&2
            done
        done
    done
    # Each suite scores one provider a run, and one dataset at a time keeps the messages short.
    evaluate() { # suite datasets...
        local suite=$1; shift
        for v in "$@"; do
            for p in ${providers//,/ }; do
                "$bin" --db "$db" -q eval --suite "$suite" --provider "$p" --dataset "$v" >/dev/null ||
                    echo "bench: eval $suite $p on $v failed" >&2
            done
        done
    }
    report() { # suite twin metric
        echo "== $1 suite, $2, $3"
        "$bin" --db "$db" report --suite "$1" --robustness "$2" --metric "$3" --format markdown || true
    }
    if has omnidoc; then
        b=$(base omnidoc); evaluate omnidoc "$b" "$b~scan" "$b~photo"
        for t in "omnidoc~noise:sigma=0~scan" "omnidoc~noise:sigma=0~photo"; do report omnidoc "$t" text_edit; report omnidoc "$t" table_teds; done
    fi
    if has tables; then
        evaluate table tables tables~scan tables~photo
        for t in tables~scan tables~photo; do report table "$t" teds; done
    fi
    if has papers; then
        evaluate paper papers papers~scan papers~photo
        for t in papers~scan papers~photo; do report paper "$t" text_f; done
    fi
    # The first page of one twin of each profile, as the twin stores it, for looking at.
    if has omnidoc; then
        for p in scan photo fax skew jpeg-20 100dpi blur noise ink; do
            "$bin" --db "$db" -q degrade --dataset "omnidoc~noise:sigma=0" --profile "$p" --seed 1 >/dev/null
        done
        python3 "$repo/bench/degrade_pictures.py" "$db" "$out"
    fi
    cp "$db" "$out/robustness.db"
    echo "bench: the store is $out/robustness.db" >&2
    ;;
*)
    echo "usage: bench/degrade.sh speed [N] | robustness [PROVIDERS] [LIMIT]" >&2
    exit 2
    ;;
esac
