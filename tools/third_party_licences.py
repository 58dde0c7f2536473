#!/usr/bin/env python3
"""Reads `cargo metadata --format-version 1 --filter-platform TARGET` on stdin and writes the
licences of every crate the `corpus` binary links: the crates reachable from the root package
through normal dependencies (not dev or build ones), each with its version, its declared
licence and the licence files its source ships (LICENSE*, LICENCE*, COPYING*, NOTICE*).

libpdfium and libonnxruntime are not linked: corpus loads them at run time from the files
`corpus setup` installs; their licences are in their manifests (models/) and the notice says
so. Used by scripts/wheel.sh."""

import json
import os
import sys

meta = json.load(sys.stdin)
packages = {p["id"]: p for p in meta["packages"]}
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
root = meta["resolve"]["root"]

seen = set()
todo = [root]
while todo:
    pid = todo.pop()
    if pid in seen:
        continue
    seen.add(pid)
    for dep in nodes[pid]["deps"]:
        if any(k["kind"] is None for k in dep["dep_kinds"]):
            todo.append(dep["pkg"])
seen.discard(root)

out = sys.stdout
out.write("corpus links the following crates. Each is listed with its version, its declared\n")
out.write("licence and the licence texts it ships.\n\n")
out.write("Not linked, loaded at run time from what `corpus setup` installs: libpdfium (BSD-3-Clause,\n")
out.write("from the pypdfium2 wheel, Apache-2.0) and libonnxruntime (MIT, from the onnxruntime wheel);\n")
out.write("their manifests in the source's models/ folder name each file, its package and licence.\n")
for pid in sorted(seen, key=lambda i: (packages[i]["name"], packages[i]["version"])):
    p = packages[pid]
    out.write("\n" + "=" * 78 + "\n")
    out.write(f"{p['name']} {p['version']}: {p.get('license') or p.get('license_file') or 'no licence declared'}\n")
    root_dir = os.path.dirname(p["manifest_path"])
    names = sorted(
        f
        for f in os.listdir(root_dir)
        if f.upper().startswith(("LICENSE", "LICENCE", "COPYING", "NOTICE", "UNLICENSE"))
        and os.path.isfile(os.path.join(root_dir, f))
    )
    for name in names:
        with open(os.path.join(root_dir, name), encoding="utf-8", errors="replace") as f:
            out.write(f"\n--- {name}\n\n{f.read().rstrip()}\n")
    if not names:
        out.write("(the crate ships no licence file; its declared licence applies)\n")
