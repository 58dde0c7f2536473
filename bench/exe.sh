# Sourced by the bench scripts: `exe DIR TARGET-ARGS...` builds with cargo and copies the
# executable it built into DIR, printing the copy's path. $CARGO_TARGET_DIR/debug holds the
# last build of any checkout that shares the target directory (another worktree's, say), so
# a long benchmark runs its own copy, taken right after its own build.
exe() {
    local dir=$1
    shift
    local built
    built=$(cargo build -q --message-format=json "$@" | python3 -c '
import json, sys
exes = [m["executable"] for m in map(json.loads, sys.stdin)
        if m.get("reason") == "compiler-artifact" and m.get("executable")]
print(exes[-1]) if exes else sys.exit("exe: cargo built no executable")') || return 1
    cp "$built" "$dir/" && echo "$dir/$(basename "$built")"
}
