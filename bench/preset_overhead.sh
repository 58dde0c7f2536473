#!/usr/bin/env bash
# The per-document overhead of the Python preset worker path: `corpus ocr --provider P -j 1`
# against the same parser called in one plain Python loop over the same PDFs, in the same
# environment, in the same run.
#
#   bench/preset_overhead.sh [--providers pymupdf4llm,pypdf] [--pages 77] [--reps 3] [--keep DIR]
#
# PDFs: the GROBID gold PDFs (${DATA:-../shared/data}/grobid-gold/pdf) in name order, taken until
# --pages pages are reached (page counts from `corpus ingest`). Per provider and repetition:
#   corpus   a fresh store (cold output cache) with those PDFs ingested, then the wall time of
#            `corpus ocr --provider P -j 1` (process start, store, worker start-up with the
#            parser's imports, each PDF written out and sent over the worker protocol, outputs
#            read and stored); beside it the sum of the per-document times corpus stored
#            (v_outputs.wall_ms).
#   python   the environment's own Python (`corpus providers show P --format json`:
#            `environment`) execs the preset's code (`preset.python.code`, as the worker does),
#            then calls parse(pdf, None, workdir) per PDF with a fresh empty workdir; `loop` is
#            timed from after the imports (the worker's per-document time), `process` is the
#            wall time of the whole Python process (interpreter start and imports included).
# Each figure is the median of --reps runs (corpus and python alternate). Printed: pages,
# corpus s, python loop s, python process s, corpus / process (the target: <= 1.10, both sides
# paying the imports once) and corpus / loop (all of corpus's fixed cost counted as overhead);
# beside them the CPU seconds (user + sys, /usr/bin/time) of `corpus ocr` with its worker and
# of the Python process, which other load on the machine moves less than wall time.
# Env: CORPUS_BIN (a built corpus; default: build in the shared dev profile), DATA.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

providers=pymupdf4llm,pypdf
want_pages=77
reps=3
keep=""
while [ $# -gt 0 ]; do
  case $1 in
    --providers) providers=$2; shift 2 ;;
    --pages) want_pages=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "bench: unknown argument $1" >&2; exit 2 ;;
  esac
done

[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed for CPU seconds" >&2; exit 2; }
data="${DATA:-../shared/data}"
src="$data/grobid-gold/pdf"
[ -d "$src" ] || { echo "bench: SKIP: $src is not present" >&2; exit 0; }

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
  rm -rf "$work/pdfs" "$work"/*.db "$work"/*.db-wal "$work"/*.db-shm "$work/times.tsv"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
if [ -n "${CORPUS_BIN:-}" ]; then
  cp "$CORPUS_BIN" "$work/corpus"
  corpus="$work/corpus"
else
  CORPUS_SETUP_QUIET=1 scripts/setup.sh
  echo "bench: building corpus (dev profile) ..." >&2
  . bench/exe.sh
  corpus=$(exe "$work" --bin corpus) || exit 1
fi

# --- the PDFs: name order until the pages are reached ---------------------------------------
CORPUS_DB="$work/count.db" "$corpus" -q ingest "$src" --dataset count >/dev/null
mkdir -p "$work/pdfs"
CORPUS_DB="$work/count.db" "$corpus" -q sql --format csv \
  "SELECT source_path, pages FROM v_documents ORDER BY document" | tail -n +2 >"$work/pages.csv"
pages=0
n=0
while IFS=, read -r path p; do
  [ "$pages" -lt "$want_pages" ] || break
  path=${path%\"}; path=${path#\"}
  ln -s "$(cd "$(dirname "$path")" && pwd)/$(basename "$path")" "$work/pdfs/"
  pages=$((pages + p))
  n=$((n + 1))
done <"$work/pages.csv"
echo "bench: $n PDFs, $pages pages: $(ls "$work/pdfs" | tr '\n' ' ')" >&2

# --- the Python loop, as the worker runs the preset's code -----------------------------------
cat >"$work/loop.py" <<'EOF'
import json, os, sys, tempfile, time
t0 = time.perf_counter()
code_path, out_path, pdfs = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.stdout = sys.stderr  # parsers may print, as under the worker
scope = {"__name__": "corpus_preset", "__file__": code_path}
exec(compile(open(code_path, encoding="utf-8").read(), code_path, "exec"), scope)
parse = scope["parse"]
t1 = time.perf_counter()
chars = 0
for pdf in pdfs:
    with tempfile.TemporaryDirectory() as wd:
        out = parse(pdf, None, wd)
        chars += len(out)
t2 = time.perf_counter()
json.dump({"import_s": t1 - t0, "loop_s": t2 - t1, "chars": chars}, open(out_path, "w"))
EOF

now() { date +%s.%N; }
: >"$work/times.tsv"
IFS=, read -r -a plist <<<"$providers"
for p in "${plist[@]}"; do
  "$corpus" -q providers install "$p" >&2 || { echo "bench: install of $p failed" >&2; exit 1; }
  "$corpus" -q providers show "$p" --format json >"$work/show-$p.json"
  python3 - "$work/show-$p.json" "$work/code-$p.py" "$work/env-$p" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
open(sys.argv[2], "w").write(v["preset"]["python"]["code"])
open(sys.argv[3], "w").write(v["environment"])
EOF
  echo "bench: $p: $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("installed_version", "?"))' "$work/show-$p.json") in $(cat "$work/env-$p")" >&2
done

for r in $(seq "$reps"); do
  for p in "${plist[@]}"; do
    db="$work/$p-$r.db"
    rm -f "$db" "$db-wal" "$db-shm"
    CORPUS_DB="$db" "$corpus" -q ingest "$work/pdfs" --dataset overhead >/dev/null
    t0=$(now)
    CORPUS_DB="$db" /usr/bin/time -f '%U %S' -o "$work/cpu-corpus-$p-$r" \
      "$corpus" -q ocr --provider "$p" -j 1 >"$work/ocr-$p-$r.log" 2>&1 \
      || { echo "bench: corpus ocr --provider $p failed:" >&2; tail -5 "$work/ocr-$p-$r.log" >&2; exit 1; }
    t1=$(now)
    stored=$(CORPUS_DB="$db" "$corpus" -q sql --format csv \
      "SELECT sum(wall_ms) / 1000.0 AS s, sum(status = 'ok') AS ok, count(*) AS n FROM v_outputs" | tail -1)
    py="$(cat "$work/env-$p")/bin/python"
    t2=$(now)
    /usr/bin/time -f '%U %S' -o "$work/cpu-python-$p-$r" \
      "$py" "$work/loop.py" "$work/code-$p.py" "$work/loop-$p-$r.json" "$work"/pdfs/*.pdf 2>"$work/loop-$p-$r.log" \
      || { echo "bench: the Python loop for $p failed:" >&2; tail -5 "$work/loop-$p-$r.log" >&2; exit 1; }
    t3=$(now)
    printf '%s\t%s\t%s\t%s\t%s\n' "$p" "$r" "$(echo "$t1 - $t0" | bc)" "$stored" \
      "$(echo "$t3 - $t2" | bc)" >>"$work/times.tsv"
    echo "bench: $p rep $r: corpus $(echo "$t1 - $t0" | bc) s (stored $stored), python $(echo "$t3 - $t2" | bc) s" >&2
  done
done

echo
python3 - "$work" "$pages" "$n" <<'EOF'
import json, statistics, sys
work, pages, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = {}
for line in open(f"{work}/times.tsv"):
    p, r, corpus_s, stored, process_s = line.rstrip("\n").split("\t")
    stored_s, ok, total = stored.split(",")
    loop = json.load(open(f"{work}/loop-{p}-{r}.json"))
    cpu = lambda side: sum(map(float, open(f"{work}/cpu-{side}-{p}-{r}").read().split()[-2:]))
    rows.setdefault(p, []).append(dict(corpus=float(corpus_s), stored=float(stored_s),
                                       ok=int(ok), total=int(total), loop=loop["loop_s"],
                                       imports=loop["import_s"], process=float(process_s),
                                       corpus_cpu=cpu("corpus"), python_cpu=cpu("python")))
med = lambda p, k: statistics.median(x[k] for x in rows[p])
print("| parser | PDFs | pages | corpus s | corpus per-doc sum s | python loop s | python process s "
      "| corpus / process | corpus / loop | target ≤ 1.10 | corpus CPU s | python CPU s | CPU ratio |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|")
for p in rows:
    c, lp, pr = med(p, "corpus"), med(p, "loop"), med(p, "process")
    ok = min(x["ok"] for x in rows[p])
    verdict = "PASS" if c / pr <= 1.10 else "MISS"
    print(f"| `{p}` | {n} ({ok} ok) | {pages} | {c:.2f} | {med(p, 'stored'):.2f} | {lp:.2f} | {pr:.2f} "
          f"| {c / pr:.3f} | {c / lp:.3f} | {verdict} | {med(p, 'corpus_cpu'):.2f} "
          f"| {med(p, 'python_cpu'):.2f} | {med(p, 'corpus_cpu') / med(p, 'python_cpu'):.3f} |")
print()
print(f"Medians of {len(next(iter(rows.values())))} runs. corpus = wall of `corpus ocr -j 1` on a fresh "
      "store; per-doc sum = the documents' stored wall_ms; python loop = parse() over the PDFs after "
      "the imports; python process = the whole Python process (start-up and imports included); "
      "CPU = user + sys of each process with everything it waited for (/usr/bin/time), the "
      "figure least moved by other load; imports alone: "
      + ", ".join(f"{p} {med(p, 'imports'):.2f} s" for p in rows) + ".")
for p in rows:
    print(f"{p} runs: " + "; ".join(f"corpus {x['corpus']:.2f} / loop {x['loop']:.2f} / process "
                                    f"{x['process']:.2f} (CPU {x['corpus_cpu']:.2f} / "
                                    f"{x['python_cpu']:.2f})" for x in rows[p]))
EOF
