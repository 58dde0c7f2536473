-- Why: the first schema: content-addressed blobs, documents and their names per dataset,
-- ground truths, runs, cached provider outputs and metric rows, plus the public views
-- v_documents and v_outputs (documented in schema/README.md).

CREATE TABLE blobs (
    hash        TEXT PRIMARY KEY,          -- blake3 of data, lowercase hex
    size        INTEGER NOT NULL,
    media_type  TEXT NOT NULL,             -- application/pdf, application/json, ...
    data        BLOB NOT NULL
);

CREATE TABLE datasets (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);

-- One row per distinct PDF (by content); names live in document_names.
CREATE TABLE documents (
    id          INTEGER PRIMARY KEY,
    blob        TEXT NOT NULL UNIQUE REFERENCES blobs(hash),
    pages       INTEGER NOT NULL,
    created_at  TEXT NOT NULL
);

-- The same bytes may be known under several names and datasets.
CREATE TABLE document_names (
    document    INTEGER NOT NULL REFERENCES documents(id),
    dataset     INTEGER NOT NULL REFERENCES datasets(id),
    name        TEXT NOT NULL,
    source_path TEXT,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (dataset, name)
);
CREATE INDEX document_names_document ON document_names(document);

-- Ground truth blobs are stored verbatim and parsed by the suites.
CREATE TABLE truths (
    id          INTEGER PRIMARY KEY,
    document    INTEGER NOT NULL REFERENCES documents(id),
    dataset     INTEGER NOT NULL REFERENCES datasets(id),
    format      TEXT NOT NULL,             -- peerread, grobid-tei, ...
    part        TEXT NOT NULL DEFAULT '',  -- for truths in several files: header, fulltext
    blob        TEXT NOT NULL REFERENCES blobs(hash),
    source_path TEXT,
    created_at  TEXT NOT NULL,
    UNIQUE (document, dataset, format, part, blob)
);

CREATE TABLE models (
    name        TEXT NOT NULL,
    version     TEXT NOT NULL,
    digest      TEXT NOT NULL,
    manifest    TEXT,
    PRIMARY KEY (name, version, digest)
);

-- Every invocation that writes (ingest, ocr, eval, import) is a run.
CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    command         TEXT NOT NULL,         -- ingest, ocr, eval, ...
    args            TEXT NOT NULL,         -- the command line as a JSON array
    started_at      TEXT NOT NULL,
    finished_at     TEXT,                  -- NULL while running or if it was killed
    corpus_version  TEXT NOT NULL,
    counts          TEXT,                  -- JSON object, written at the end
    errors          INTEGER NOT NULL DEFAULT 0
);

-- Per-file failures of ingest (not a PDF, truncated, encrypted, malformed truth).
CREATE TABLE ingest_errors (
    id          INTEGER PRIMARY KEY,
    run         INTEGER REFERENCES runs(id),
    path        TEXT NOT NULL,
    error       TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

-- One row per cache key: an output (status ok, blob = the Doc JSON) or a recorded failure.
CREATE TABLE outputs (
    id                INTEGER PRIMARY KEY,
    cache_key         TEXT NOT NULL UNIQUE,
    document          INTEGER NOT NULL REFERENCES documents(id),
    provider          TEXT NOT NULL,
    provider_version  TEXT NOT NULL,
    model_digest      TEXT NOT NULL,
    config            TEXT NOT NULL,       -- canonical JSON
    pages             TEXT NOT NULL,       -- page selection, 'all' or '1-3,5'
    status            TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    error             TEXT,
    blob              TEXT REFERENCES blobs(hash),
    wall_ms           INTEGER,
    device            TEXT,
    run               INTEGER REFERENCES runs(id),
    created_at        TEXT NOT NULL,
    CHECK ((status = 'ok') = (blob IS NOT NULL))
);
CREATE INDEX outputs_document ON outputs(document, provider);

CREATE TABLE metrics (
    id             INTEGER PRIMARY KEY,
    output         INTEGER NOT NULL REFERENCES outputs(id),
    truth          INTEGER NOT NULL REFERENCES truths(id),
    suite          TEXT NOT NULL,
    suite_version  INTEGER NOT NULL,
    metric         TEXT NOT NULL,
    value          REAL,                   -- NULL where the truth side is empty
    trace          TEXT,                   -- JSON: why the value is what it is
    run            INTEGER REFERENCES runs(id),
    computed_at    TEXT NOT NULL,
    UNIQUE (output, truth, suite, suite_version, metric)
);

CREATE VIEW v_documents AS
SELECT n.name        AS document,
       ds.name       AS dataset,
       d.blob        AS hash,
       d.pages       AS pages,
       b.size        AS bytes,
       n.source_path AS source_path,
       n.created_at  AS ingested_at,
       d.id          AS document_id
FROM document_names n
JOIN documents d ON d.id = n.document
JOIN datasets ds ON ds.id = n.dataset
JOIN blobs b ON b.hash = d.blob;

CREATE VIEW v_outputs AS
SELECT n.name             AS document,
       ds.name            AS dataset,
       d.blob             AS hash,
       o.provider         AS provider,
       o.provider_version AS provider_version,
       o.model_digest     AS model_digest,
       o.config           AS config,
       o.pages            AS page_selection,
       o.status           AS status,
       o.error            AS error,
       o.wall_ms          AS wall_ms,
       o.device           AS device,
       o.run              AS run,
       o.created_at       AS created_at,
       o.cache_key        AS cache_key,
       o.blob             AS output_blob,
       o.id               AS output_id,
       d.id               AS document_id
FROM outputs o
JOIN documents d ON d.id = o.document
JOIN document_names n ON n.document = d.id
JOIN datasets ds ON ds.id = n.dataset;
