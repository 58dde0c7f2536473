#!/usr/bin/env bash
# One leaderboard of every parser corpus can run on this machine without heavy dependencies:
# `pdfium`, `layout` and every preset not marked heavy (docs/presets.md), in one throw-away
# store, one run, on the same documents: pdf-parse-bench's tables and ICDAR 2013 `eu` (table
# suite), the GROBID gold papers (paper suite), pdf-parse-bench's formulas (formula suite).
# Prints one Markdown table, a row per parser, with pages per CPU-second.
#
#   bench/leaderboard.sh [--jobs N] [--keep DIR] [--providers a,b,c] [--max-docs N]
#                        [--timeout S] [--cdm]
#
# --jobs N         workers of each `corpus ocr` (default 2)
# --keep DIR       keep the store (DIR/bench.db), each eval's JSON and every log in DIR
# --providers LIST only these providers, in this order (heavy presets may be named here)
# --max-docs N     only the first N PDFs (by name) of each dataset (default: all)
# --timeout S      per-document time limit of `corpus ocr` (default: corpus's, 120 s)
# --cdm            also compute CDM in the formula suite (needs xelatex; ~10 min per parser
#                  with a cold render cache). Without it the formula eval runs with a
#                  stand-in `xelatex` that fails, so CDM is recorded as unavailable and only
#                  edit similarity is reported (`corpus eval` has no switch to skip CDM).
#
# Each preset is installed first with `corpus providers install ID` (PyPI, into
# ${CORPUS_CACHE:-~/.cache/corpus}/envs); one that cannot be installed or is not ready is
# reported with its error and left out, never fatal. CPU seconds are user + sys of each
# `corpus ocr` and everything it waits for (workers, Python, external tools), from
# /usr/bin/time; pages per CPU-second = pages of every document the run parsed (failures
# included) / those seconds. Scores are read back from the store (`corpus sql` over
# v_latest_scores): each a mean of document values over every document of the suite's
# datasets, a document the parser failed on (no stored score) counted as 0 and shown in the
# `failed` column. Env: CORPUS_BIN (a built corpus; default: build it in the shared dev
# profile), DATA (default ../shared/data relative to the repository).
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

jobs=2
keep=""
only=""
max_docs=0
timeout=""
cdm=0
while [ $# -gt 0 ]; do
  case $1 in
    --jobs) jobs=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --providers) only=$2; shift 2 ;;
    --max-docs) max_docs=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --cdm) cdm=1; shift ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed for CPU seconds" >&2; exit 2; }
t_start=$(date +%s.%N)

# --- the store and the binary ------------------------------------------------------------
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
  rm -rf "$work/bench.db" "$work/bench.db-wal" "$work/bench.db-shm" "$work/subset" "$work/logs"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/logs"
export CORPUS_DB="$work/bench.db"

# A copy of the binary: a long run keeps its own even if the build is redone meanwhile.
if [ -n "${CORPUS_BIN:-}" ]; then
  cp "$CORPUS_BIN" "$work/corpus"
  corpus="$work/corpus"
else
  CORPUS_SETUP_QUIET=1 scripts/setup.sh
  echo "bench: building corpus (dev profile) ..." >&2
  . bench/exe.sh
  corpus=$(exe "$work" --bin corpus) || exit 1
fi

# --- documents -----------------------------------------------------------------------------
data="${DATA:-../shared/data}"
tables="$data/pdf-parse-bench/tables"
formulas="$data/pdf-parse-bench/formulas"
eu="$data/icdar2013/eu"
grobid="$data/grobid-gold/pdf"

# subset SRC DATASET: with --max-docs, a copy of the folder tree SRC (or, for grobid, its parent) made
# of file symlinks, with the first N PDFs by name and only the files that belong to them (a
# file belongs to a PDF when its name holds the PDF's stem between separators); files that
# belong to no PDF (licences) are kept. Prints the folder to ingest.
subset() {   # SRC DATASET
  local src=$1 root=$1 rel="" dst
  [ "$max_docs" -gt 0 ] || { echo "$src"; return; }
  if [ "$(basename "$src")" = pdf ]; then root=$(dirname "$src"); rel=pdf; fi
  dst="$work/subset/$2"
  python3 - "$root" "$dst" "$max_docs" <<'EOF'
import os, re, sys
root, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs]
pdfs = sorted(f for f in files if f.lower().endswith(".pdf"))
stems = {os.path.basename(f)[:-4] for f in pdfs}
keep = {os.path.basename(f)[:-4] for f in pdfs[:n]}
def owners(name):
    return {s for s in stems if re.search(r"(^|[^0-9A-Za-z])" + re.escape(s) + r"($|[._-])", name)}
for f in files:
    o = owners(os.path.basename(f))
    if o and not (o & keep):
        continue
    os.makedirs(os.path.join(dst, os.path.dirname(f)), exist_ok=True)
    os.symlink(os.path.abspath(os.path.join(root, f)), os.path.join(dst, f))
EOF
  [ $? -eq 0 ] || return 1
  echo "$dst${rel:+/$rel}"
}

ingest() {   # NAME DIR TRUTH DATASET
  local name=$1 dir=$2 truth=$3 dataset=$4 src
  if [ ! -d "$dir" ]; then
    echo "bench: skipping $name: $dir is not present" >&2
    return
  fi
  src=$(subset "$dir" "$dataset") || { echo "bench: cannot make a subset of $dir" >&2; exit 1; }
  "$corpus" -q ingest "$src" --truth "$truth" --dataset "$dataset" >"$work/logs/ingest-$dataset.log" 2>&1 \
    || { echo "bench: ingest of $dir failed:" >&2; tail -5 "$work/logs/ingest-$dataset.log" >&2; exit 1; }
  datasets+=("$dataset")
}
datasets=()
ingest "pdf-parse-bench tables" "$tables" latex-tables pptables
ingest "pdf-parse-bench formulas" "$formulas" pdf-parse-bench ppformulas
ingest "ICDAR 2013 eu" "$eu" icdar2013 icdar-eu
ingest "GROBID gold" "$grobid" grobid-tei grobid
if [ ${#datasets[@]} -eq 0 ]; then
  echo "bench: SKIP: none of the datasets is present under $data" >&2
  exit 0
fi
"$corpus" -q sql --format csv \
  "SELECT dataset, count(*) AS documents, sum(pages) AS pages FROM v_documents GROUP BY 1 ORDER BY 1" \
  | sed 's/^/bench: /' >&2

# --- providers -----------------------------------------------------------------------------
# `providers` exits 3 when a preset file cannot be read; it names each on stderr.
"$corpus" -q providers --format json >"$work/providers.json" 2>"$work/logs/providers.log" \
  || [ $? -eq 3 ] || { cat "$work/logs/providers.log" >&2; exit 1; }
if [ -n "$only" ]; then
  IFS=, read -r -a providers <<<"$only"
else
  mapfile -t providers < <(python3 - "$work/providers.json" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
print("pdfium"); print("layout")
for r in rows:
    # Presets: python and command entries other than the generic `command`; the repository's
    # own (a user preset is run only when named with --providers); none marked heavy.
    if r["kind"] in ("python", "command") and r["provider"] != "command" \
            and "heavy" not in r["notes"] and "user preset" not in r["notes"]:
        print(r["provider"])
EOF
  )
fi
kind_of() {
  python3 -c 'import json, sys; r = {x["provider"]: x for x in json.load(open(sys.argv[1]))}; print(r.get(sys.argv[2], {}).get("kind", "?") + "\t" + r.get(sys.argv[2], {}).get("ready", "unknown provider"))' \
    "$work/providers.json" "$1"
}

: >"$work/skipped.txt"
# Preset files corpus rejected are not in the list: reported, never run.
[ -n "$only" ] || sed -n 's/^corpus: preset presets\/\([^.]*\)\.toml: \(.*\)$/\1\tpreset rejected by corpus: \2/p' \
  "$work/logs/providers.log" >>"$work/skipped.txt"
ready=()
echo "bench: installing presets ..." >&2
t0=$(date +%s.%N)
for p in "${providers[@]}"; do
  IFS=$'\t' read -r kind readiness < <(kind_of "$p")
  case $kind in
    python|command)
      if "$corpus" providers install "$p" >"$work/logs/install-$p.log" 2>&1; then
        ready+=("$p")
      else
        printf '%s\tinstall failed: %s\n' "$p" \
          "$(grep -v '^\s*$' "$work/logs/install-$p.log" | tail -3 | tr '\n\t' '  ')" >>"$work/skipped.txt"
        echo "bench: $p: install failed, skipped (log: $work/logs/install-$p.log)" >&2
      fi ;;
    in-process)
      if [ "$readiness" = yes ]; then ready+=("$p")
      else printf '%s\tnot ready: %s\n' "$p" "$readiness" >>"$work/skipped.txt"; fi ;;
    *)
      printf '%s\tnot run: kind %s, ready: %s\n' "$p" "$kind" "$readiness" >>"$work/skipped.txt" ;;
  esac
done
t1=$(date +%s.%N)
echo "bench: installs took $(echo "$t1 - $t0" | bc) s" >&2

# --formula eval: without --cdm, a stand-in xelatex that fails keeps CDM from rendering.
notex="$work/no-tex"
mkdir -p "$notex"
printf '#!/bin/sh\necho "leaderboard.sh: CDM skipped (run with --cdm)" >&2\nexit 1\n' >"$notex/xelatex"
chmod +x "$notex/xelatex"
formula_path=$PATH
[ "$cdm" = 1 ] || formula_path="$notex:$PATH"

# --- runs ----------------------------------------------------------------------------------
ocr_args=(-j "$jobs")
[ -z "$timeout" ] || ocr_args+=(--timeout "$timeout")
: >"$work/runs.tsv"
echo "bench: load before: $(uptime | sed 's/.*load average/load average/')" >&2
for p in "${ready[@]}"; do
  echo "bench: corpus ocr --provider $p ${ocr_args[*]} ..." >&2
  tf="$work/logs/time-$p"
  rc=0
  /usr/bin/time -f '%e %U %S' -o "$tf" "$corpus" -q ocr --provider "$p" "${ocr_args[@]}" \
    >"$work/logs/ocr-$p.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    # The error line corpus printed, else the log's last lines.
    why=$(grep -m1 'error:' "$work/logs/ocr-$p.log" || grep -v '^\s*$' "$work/logs/ocr-$p.log" | tail -3)
    printf '%s\tocr exited %s: %s\n' "$p" "$rc" "$(printf '%s' "$why" | tr '\n\t' '  ')" >>"$work/skipped.txt"
    echo "bench: $p: corpus ocr exited $rc, left out (log: $work/logs/ocr-$p.log)" >&2
    continue
  fi
  read -r wall user sys < <(tail -1 "$tf")
  evrc=""
  for s in table paper formula; do
    erc=0
    case $s in
      formula) PATH=$formula_path "$corpus" -q eval --suite formula --provider "$p" --dataset ppformulas \
                 --format json >"$work/eval-$s-$p.json" 2>"$work/logs/eval-$s-$p.log" || erc=$? ;;
      paper) "$corpus" -q eval --suite paper --provider "$p" --dataset grobid \
               --format json >"$work/eval-$s-$p.json" 2>"$work/logs/eval-$s-$p.log" || erc=$? ;;
      table) "$corpus" -q eval --suite table --provider "$p" \
               --format json >"$work/eval-$s-$p.json" 2>"$work/logs/eval-$s-$p.log" || erc=$? ;;
    esac
    # 3: some documents could not be scored (they count 0); anything else is an error.
    [ "$erc" -eq 0 ] || [ "$erc" -eq 3 ] || evrc+="$s:$erc "
  done
  printf '%s\t%s\t%s\t%s\t%s\n' "$p" "$wall" "$user" "$sys" "${evrc:--}" >>"$work/runs.tsv"
  echo "bench: $p: $wall s wall, $(echo "$user + $sys" | bc) CPU s, ocr exit $rc${evrc:+, eval errors $evrc}" >&2
done
echo "bench: load after:  $(uptime | sed 's/.*load average/load average/')" >&2

# --- the table -----------------------------------------------------------------------------
"$corpus" -q sql --format json --timeout 300 \
  "SELECT provider, provider_version, suite, dataset, document_id, metric, value FROM v_latest_scores
   WHERE suite IN ('table', 'paper', 'formula')
     AND metric IN ('teds', 'grits_con_f', 'det_r', 'text_r', 'order', 'edit_sim', 'cdm', 'found')" \
  >"$work/scores.json"
"$corpus" -q sql --format json "SELECT dataset, document_id, pages FROM v_documents" >"$work/documents.json"
"$corpus" -q sql --format json \
  "SELECT provider, provider_version, document_id, status, error FROM v_outputs" >"$work/outputs.json"
t_end=$(date +%s.%N)
echo
python3 - "$work" "$jobs" "$max_docs" "$cdm" "$(echo "$t_end - $t_start" | bc)" <<'EOF'
import collections, json, sys
work, jobs, max_docs, cdm, total = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", float(sys.argv[5])
load = lambda n: json.load(open(f"{work}/{n}.json"))
scores, docs, outputs = load("scores"), load("documents"), load("outputs")
runs = [l.rstrip("\n").split("\t") for l in open(f"{work}/runs.tsv") if l.strip()]
skipped = [l.rstrip("\n").split("\t", 1) for l in open(f"{work}/skipped.txt") if l.strip()]

pages = {d["document_id"]: d["pages"] or 0 for d in docs}
by_ds = collections.defaultdict(set)
for d in docs:
    by_ds[d["dataset"]].add(d["document_id"])
SUITES = {"table": ["pptables", "icdar-eu"], "paper": ["grobid"], "formula": ["ppformulas"]}
# (provider, suite, dataset, doc) -> {metric: value}
sc = collections.defaultdict(dict)
versions = {}
for r in scores:
    sc[(r["provider"], r["suite"], r["dataset"], r["document_id"])][r["metric"]] = r["value"]
outs = collections.defaultdict(dict)
for o in outputs:
    outs[o["provider"]][o["document_id"]] = (o["status"], o["error"])
    versions[o["provider"]] = o["provider_version"]

def mean(p, suite, metric, only=None):
    """Mean over every document of the suite's datasets (or of `only`); no stored score (a
    failed parse) = 0, a stored null (undefined for that document) left out. None without
    documents."""
    vals = []
    for ds in only or SUITES[suite]:
        for d in by_ds.get(ds, ()):
            row = sc.get((p, suite, ds, d))
            if row is None:
                vals.append(0.0)
            elif row.get(metric) is not None:
                vals.append(row[metric])
    return sum(vals) / len(vals) if vals else None

fmt = lambda x: "–" if x is None else f"{x:.3f}"
head = ["parser", "version", "TEDS", "GriTS-Con F", "det R", "det R pp / eu", "text R", "order",
        "formula edit sim"] + (["formula CDM"] if cdm else []) + ["pages/CPU-s", "failed"]
print("| " + " | ".join(head) + " |")
print("|" + "|".join(["---"] * 2 + ["--:"] * (len(head) - 2)) + "|")
notes = []
for p, wall, user, sys_, everr in runs:
    cpu = float(user) + float(sys_)
    o = outs.get(p, {})
    run_pages = sum(pages.get(d, 0) for d in o)
    failed = [d for d, (s, _) in o.items() if s != "ok"]
    cells = [f"`{p}`", versions.get(p, "") or "",
             fmt(mean(p, "table", "teds")), fmt(mean(p, "table", "grits_con_f")),
             fmt(mean(p, "table", "det_r")),
             fmt(mean(p, "table", "det_r", ["pptables"])) + " / " + fmt(mean(p, "table", "det_r", ["icdar-eu"])),
             fmt(mean(p, "paper", "text_r")),
             fmt(mean(p, "paper", "order")), fmt(mean(p, "formula", "edit_sim"))]
    if cdm:
        cells.append(fmt(mean(p, "formula", "cdm")))
    # A parser that failed on every document (it could not even load) has no speed to show.
    speed = f"{run_pages / cpu:.1f}" if cpu > 0 and len(failed) < len(o) else "–"
    cells += [speed, f"{len(failed)}/{len(o)}"]
    print("| " + " | ".join(cells) + " |")
    errs = collections.Counter((o[d][1] or "?").splitlines()[0][:120] for d in failed)
    detail = "; ".join(f"{n}× {e}" for e, n in errs.most_common(3))
    notes.append(f"{p}: {wall} s wall, {cpu:.1f} CPU s, {run_pages} pages"
                 + (f"; failed: {detail}" if failed else "")
                 + (f"; eval errors: {everr}" if everr != "-" else ""))
print()
n_docs = {s: sum(len(by_ds.get(ds, ())) for ds in v) for s, v in SUITES.items()}
n_pages = sum(pages.values())
print(f"Documents: table suite {n_docs['table']} (pptables + icdar-eu), paper suite "
      f"{n_docs['paper']} (grobid), formula suite {n_docs['formula']} (ppformulas); "
      f"{len(pages)} PDFs, {n_pages} pages" + (f" (first {max_docs} PDFs per dataset)" if max_docs else "")
      + f"; `corpus ocr -j {jobs}`.")
print("Scores are means of document values (table: each document's mean over its GT tables; an "
      "unmatched table scores 0), a document the parser failed on counted as 0. pages/CPU-s = "
      "pages of the documents run / (user + sys CPU seconds of `corpus ocr` with its workers and "
      "tools). failed = documents without an output / documents run."
      + ("" if cdm else " CDM not computed (formula: edit similarity only).")
      + " det R on pptables is matched / GT tables (tables paired by content); on ICDAR `eu` a GT "
      "region is found only by a predicted table block with a box (IoU >= 0.5), so output without "
      "boxes (Markdown, text) scores 0 there however good its tables are (`det R pp / eu`)."
      " A parser whose output carries no tables scores 0 on the table suite, and `order` (the "
      "order of the GT's section headings found in the output) is 0 for output without headings.")
print()
for n in notes:
    print("- " + n)
for p, why in skipped:
    print(f"- {p}: left out: {why}")
print(f"\nbench: total wall {total:.0f} s")
EOF
