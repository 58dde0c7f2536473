"""Fills a corpus store with synthetic scores for the report benchmark.

10,000 documents x 2 provider versions x 50 metrics = 1,000,000 metric rows (about one in
twenty values null). The store must already exist (any corpus command creates it).
Usage: make_report_store.py STORE [DOCS] [METRICS]
"""
import random
import sqlite3
import sys

db = sys.argv[1]
docs = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
n_metrics = int(sys.argv[3]) if len(sys.argv) > 3 else 50
# The paper suite's ids first, so the report's preferred order is exercised too.
paper = ["text_r", "table_r", "formula_r", "order_r", "refs_r", "mentions_r"]
metrics = (paper + [f"m{i:02d}" for i in range(n_metrics)])[:n_metrics]
rnd = random.Random(7)
now = "2026-12-01T00:00:00.000Z"
con = sqlite3.connect(db)
con.execute("PRAGMA synchronous=OFF")
with con:
    con.execute("INSERT INTO datasets (name, created_at) VALUES ('bench', ?)", (now,))
    ds = con.execute("SELECT id FROM datasets WHERE name = 'bench'").fetchone()[0]
    runs = []
    for v in ("1", "2"):
        cur = con.execute(
            "INSERT INTO runs (command, args, started_at, finished_at, corpus_version, errors)"
            " VALUES ('eval', '[]', ?, ?, 'bench', 0)", (now, now))
        runs.append(cur.lastrowid)
    con.execute("INSERT INTO blobs (hash, size, media_type, data) VALUES ('out', 2, 'application/json', '{}')")
    for i in range(docs):
        h = f"{i:064x}"
        con.execute("INSERT INTO blobs (hash, size, media_type, data) VALUES (?, 1, 'application/pdf', x'25')", (h,))
        d = con.execute("INSERT INTO documents (blob, pages, created_at) VALUES (?, 1, ?)", (h, now)).lastrowid
        con.execute("INSERT INTO document_names (document, dataset, name, created_at) VALUES (?, ?, ?, ?)",
                    (d, ds, f"doc{i:05d}", now))
        t = con.execute("INSERT INTO truths (document, dataset, format, blob, created_at)"
                        " VALUES (?, ?, 'peerread', 'out', ?)", (d, ds, now)).lastrowid
        for v, run in zip(("1", "2"), runs):
            o = con.execute(
                "INSERT INTO outputs (cache_key, document, provider, provider_version, model_digest,"
                " config, pages, status, blob, run, created_at)"
                " VALUES (?, ?, 'pdfium', ?, 'm', '{}', 'all', 'ok', 'out', ?, ?)",
                (f"{h}-{v}", d, v, run, now)).lastrowid
            con.executemany(
                "INSERT INTO metrics (output, truth, suite, suite_version, metric, value, run, computed_at)"
                " VALUES (?, ?, 'paper', 1, ?, ?, ?, ?)",
                [(o, t, m, None if rnd.random() < 0.05 else rnd.random(), run, now) for m in metrics])
n = con.execute("SELECT count(*) FROM metrics").fetchone()[0]
print(f"{db}: {n} metric rows, {docs} documents, {len(metrics)} metrics, 2 provider versions")
