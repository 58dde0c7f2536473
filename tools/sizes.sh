#!/usr/bin/env bash
# Prints every hand-written Rust file in src/ longer than 1,000 lines and every function longer
# than 150 lines, and exits 1 when it finds one that is not in ALLOWED below or is longer than
# ALLOWED says (0 otherwise). CI runs it. Run from anywhere:
#   tools/sizes.sh
#
# ALLOWED is a ratchet, not a licence: each entry is a unit that was over when the check went
# into CI, with its size then; it may shrink (lower the figure, or drop the entry once it is
# under) but not grow, and nothing new joins it. Three are ports kept one-to-one with the
# reference function they reproduce, so that each branch can be read beside the original
# (`group`: the KaTeX printer's `group` switch; `md_tex_filter` and `match_quick`:
# OmniDocBench's functions of those names). Corpus's own two (pdfium's grid `build`, the
# store's `score_columns`) are split and off it.
#
# Method: a file's size is its line count (`wc -l`). A function is found by a line whose code
# starts with `fn NAME` (after any of `pub`, `pub(...)`, `const`, `async`, `unsafe`,
# `extern "..."`, `default`); from that line the scan counts `{` and `}` until the count, once
# above zero, is back at zero, and the function's size is the lines from the `fn` line to that
# closing brace, both included. A `;` before any `{` (a trait method without a body) ends the
# scan with nothing to report. Before counting, each line loses its `//` comment, its string
# literals ("...", without escapes spanning lines) and its brace character literals ('{', '}'),
# so format strings and the like do not count. Nested functions are measured on their own and
# also count in the function around them. It is a heuristic, not a parser: a raw string holding
# an unbalanced brace over several lines could skew one figure.
#
# Files written by a committed generator are left out; each is listed here with its generator:
#   src/metrics/cdm/tokens/symbols.rs             tools/gen_cdm_symbols.py
#   src/suites/omnidoc/normalize/latex_table.rs   tools/gen_latex_table.py (tools/gen_latex_table.sh)
#   src/metrics/parsebench/unidecode_table.rs     tools/gen_unidecode_table.py (tools/gen_unidecode_table.sh)
# (src/metrics/cdm/tokens/katex/ is a hand port of the CDM tokenizer's KaTeX parser, not
# generated, so it is checked.)
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_FILE=1000
MAX_FN=150
GENERATED='
src/metrics/cdm/tokens/symbols.rs
src/suites/omnidoc/normalize/latex_table.rs
src/metrics/parsebench/unidecode_table.rs
'

# path:name (a function) or path (a file), then the most lines it may have.
ALLOWED='
src/metrics/cdm/tokens/katex/printer.rs:group 201
src/suites/omnidoc/extract.rs:md_tex_filter 219
src/suites/omnidoc/matching/quick.rs:match_quick 210
'

# allowed UNIT LINES: whether UNIT may have LINES lines.
allowed() {
    local max
    max=$(awk -v u="$1" '$1 == u { print $2 }' <<<"$ALLOWED")
    [ -n "$max" ] && [ "$2" -le "$max" ]
}

found=0
while IFS= read -r f; do
    if grep -qxF "$f" <<<"$GENERATED"; then
        continue
    fi
    lines=$(wc -l <"$f")
    if [ "$lines" -gt "$MAX_FILE" ]; then
        if allowed "$f" "$lines"; then
            echo "file $f: $lines lines (over $MAX_FILE; allowed)"
        else
            echo "file $f: $lines lines (over $MAX_FILE)"
            found=1
        fi
    fi
    out=$(awk -v max="$MAX_FN" -v file="$f" '
        function clean(s) {
            gsub(/\\\\/, "", s)                  # escaped backslashes
            gsub(/\\"/, "", s)                   # escaped quotes
            gsub(/"[^"]*"/, "\"\"", s)           # string literals
            gsub(/'\''[{}]'\''/, "", s)          # brace character literals
            sub(/\/\/.*/, "", s)                 # line comments
            return s
        }
        { line[NR] = clean($0) }
        END {
            for (i = 1; i <= NR; i++) {
                if (line[i] !~ /^[ \t]*((pub(\([^)]*\))?|const|async|unsafe|default|extern[ \t]+""|extern)[ \t]+)*fn[ \t]+[A-Za-z_][A-Za-z0-9_]*/)
                    continue
                name = line[i]
                sub(/^.*fn[ \t]+/, "", name)
                sub(/[^A-Za-z0-9_].*$/, "", name)
                depth = 0; opened = 0; end = 0
                for (j = i; j <= NR && !end; j++) {
                    s = line[j]
                    for (k = 1; k <= length(s); k++) {
                        c = substr(s, k, 1)
                        if (c == ";" && !opened) { end = -1; break }
                        if (c == "{") { depth++; opened = 1 }
                        else if (c == "}") {
                            depth--
                            if (opened && depth == 0) { end = j; break }
                        }
                    }
                }
                if (end > 0 && end - i + 1 > max)
                    printf "%s:%s %d %d\n", file, name, i, end - i + 1
            }
        }' "$f")
    while read -r unit at n; do
        [ -n "$unit" ] || continue
        if allowed "$unit" "$n"; then
            echo "fn ${unit%%:*}:$at ${unit##*:}: $n lines (over $MAX_FN; allowed)"
        else
            echo "fn ${unit%%:*}:$at ${unit##*:}: $n lines (over $MAX_FN)"
            found=1
        fi
    done <<<"$out"
done < <(find src -name '*.rs' | sort)
exit "$found"
