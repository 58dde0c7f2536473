#!/usr/bin/env python3
"""Writes N distinct one-page PDFs by hand (no PDF library).

    python bench/make_pdfs.py OUT_DIR [N=1000]

Each file is a valid PDF 1.4: catalog, pages, one Letter page, a content stream drawing one
line of text ("Benchmark document NNNN ...") in the standard Type1 font Helvetica, and a
cross-reference table with exact byte offsets. The index in the text makes every file's bytes,
and so its content hash, distinct.
"""

import os
import sys


def pdf(i: int) -> bytes:
    text = f"Benchmark document {i:04d}: the quick brown fox jumps over the lazy dog."
    text = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET\n".encode("latin-1")
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n" % (len(objs) + 1)
    out += b"0000000000 65535 f \n"  # each entry is exactly 20 bytes
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) == 3 else 1000
    os.makedirs(out_dir, exist_ok=True)
    for i in range(n):
        with open(os.path.join(out_dir, f"doc{i:04d}.pdf"), "wb") as f:
            f.write(pdf(i))


if __name__ == "__main__":
    main()
