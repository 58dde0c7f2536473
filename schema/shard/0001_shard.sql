-- Why: the file one task of a cluster array writes instead of the main store (see
-- docs/scale-out.md). It holds only what the task produced — outputs (ok and failed) with their
-- blobs, metric rows, the task's runs — plus the identities `corpus merge` needs to fold them
-- into a main store: documents by content hash, truths by (document, dataset, format, part,
-- blob), outputs by cache key. Never a PDF. `PRAGMA application_id` marks the file as a shard
-- file; `PRAGMA user_version` is this format's version.

CREATE TABLE shard_info (
    key    TEXT PRIMARY KEY,   -- format, store_schema, shard, created_at, corpus_version, ...
    value  TEXT NOT NULL
);

CREATE TABLE blobs (
    hash        TEXT PRIMARY KEY,          -- blake3 of data, lowercase hex
    size        INTEGER NOT NULL,
    media_type  TEXT NOT NULL,
    data        BLOB NOT NULL
);

-- The documents this shard's outputs and truths belong to: identity only, no bytes.
CREATE TABLE documents (
    hash   TEXT PRIMARY KEY,       -- blake3 of the PDF
    pages  INTEGER NOT NULL
);

CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    uid             TEXT NOT NULL UNIQUE,
    command         TEXT NOT NULL,
    args            TEXT NOT NULL,
    started_at      TEXT NOT NULL,
    finished_at     TEXT,
    corpus_version  TEXT NOT NULL,
    counts          TEXT,
    errors          INTEGER NOT NULL DEFAULT 0,
    host            TEXT,
    scheduler       TEXT,
    job_id          TEXT,
    array_job_id    TEXT,
    array_task_id   TEXT,
    shard           TEXT
);

CREATE TABLE outputs (
    cache_key         TEXT PRIMARY KEY,
    document          TEXT NOT NULL REFERENCES documents(hash),
    provider          TEXT NOT NULL,
    provider_version  TEXT NOT NULL,
    model_digest      TEXT NOT NULL,
    config            TEXT NOT NULL,
    pages             TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    error             TEXT,
    blob              TEXT REFERENCES blobs(hash),
    wall_ms           INTEGER,
    device            TEXT,
    run               INTEGER REFERENCES runs(id),
    created_at        TEXT NOT NULL,
    CHECK ((status = 'ok') = (blob IS NOT NULL))
);

-- A truth of the main store, by identity (its row id there means nothing elsewhere).
CREATE TABLE truths (
    id        INTEGER PRIMARY KEY,
    document  TEXT NOT NULL REFERENCES documents(hash),
    dataset   TEXT NOT NULL,
    format    TEXT NOT NULL,
    part      TEXT NOT NULL,
    blob      TEXT NOT NULL,
    UNIQUE (document, dataset, format, part, blob)
);

-- A metric row; its output is named by cache key (it may live in the main store only).
CREATE TABLE metrics (
    output         TEXT NOT NULL,
    truth          INTEGER NOT NULL REFERENCES truths(id),
    suite          TEXT NOT NULL,
    suite_version  INTEGER NOT NULL,
    metric         TEXT NOT NULL,
    value          REAL,
    trace          TEXT,
    run            INTEGER REFERENCES runs(id),
    computed_at    TEXT NOT NULL,
    PRIMARY KEY (output, truth, suite, suite_version, metric)
);
