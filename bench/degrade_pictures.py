"""Writes the page image of the first twin of each `omnidoc~noise:sigma=0~*` dataset of a store as a PNG
(or the JPEG it is stored as), straight from the twin PDF's image stream, so that a person can
look at what each profile does. Usage: degrade_pictures.py STORE OUT_DIR"""
import os
import re
import sqlite3
import struct
import sys
import zlib


def png(path, width, height, bits, channels, raw):
    """An 8-bit grey/RGB or 1-bit grey PNG of unfiltered rows."""
    row = (width * channels * bits + 7) // 8
    lines = b"".join(b"\0" + raw[y * row:(y + 1) * row] for y in range(height))
    colour = 0 if channels == 1 else 2

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bits, colour, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(lines, 6)))
        f.write(chunk(b"IEND", b""))


def main(db, out):
    c = sqlite3.connect(db)
    rows = c.execute(
        """SELECT s.name, min(n.name), d.blob FROM documents d
           JOIN document_names n ON n.document = d.id JOIN datasets s ON s.id = n.dataset
           WHERE s.name LIKE 'omnidoc~noise:sigma=0~%' GROUP BY s.name ORDER BY s.name""").fetchall()
    for dataset, name, blob in rows:
        data = c.execute("SELECT data FROM blobs WHERE hash = ?", (blob,)).fetchone()[0]
        if not data:
            data = b"".join(r[0] for r in c.execute(
                "SELECT data FROM blob_chunks WHERE blob = ? ORDER BY seq", (blob,)))
        m = re.search(rb"/Subtype /Image /Width (\d+) /Height (\d+) /ColorSpace /Device(\w+) "
                      rb"/BitsPerComponent (\d+) /Filter /(\w+) /Length (\d+) >>\nstream\n", data)
        w, h, space, bits, filt, length = (int(m[1]), int(m[2]), m[3].decode(), int(m[4]),
                                           m[5].decode(), int(m[6]))
        stream = data[m.end():m.end() + length]
        base = os.path.join(out, dataset.rsplit("~", 1)[1].replace(":", "_"))
        if filt == "DCTDecode":
            path = base + ".jpg"
            open(path, "wb").write(stream)
        else:
            path = base + ".png"
            png(path, w, h, bits, 1 if space == "Gray" else 3, zlib.decompress(stream))
        print(f"{dataset}: {name} page 1, {w} x {h}, {filt}: {path}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
