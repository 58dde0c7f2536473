-- Why: a task of `corpus degrade --shard K/N --into FILE` makes new documents (image-only twins)
-- with their truths and attributes; the main store is read-only to a task, so they go into its
-- shard file, and `corpus merge` stores each exactly as `corpus ingest` would have (the same
-- rows, content-hashed, idempotent). The rules are in docs/scale-out.md ("Documents a task
-- makes"). A task's per-document failures are kept too, for the store's ingest_errors.

-- One (dataset, name) → document, as Store::ingest would store it.
CREATE TABLE ingests (
    id            INTEGER PRIMARY KEY,
    document      TEXT NOT NULL,              -- blake3 of the bytes
    pages         INTEGER NOT NULL,
    pdf_blob      TEXT REFERENCES blobs(hash),-- the bytes, or NULL where the main store had them
    derived_from  TEXT REFERENCES documents(hash), -- a document of the main store it was made from
    dataset       TEXT NOT NULL,
    name          TEXT NOT NULL,
    source_path   TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    UNIQUE (dataset, name)
);

-- Its truth files, in the order they were given (the order decides which supersedes which).
CREATE TABLE ingest_truths (
    ingest       INTEGER NOT NULL REFERENCES ingests(id),
    format       TEXT NOT NULL,
    part         TEXT NOT NULL,
    blob         TEXT NOT NULL REFERENCES blobs(hash),
    source_path  TEXT NOT NULL,
    PRIMARY KEY (ingest, format, part, blob)
);

-- Its attributes in its dataset.
CREATE TABLE ingest_attributes (
    ingest  INTEGER NOT NULL REFERENCES ingests(id),
    name    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (ingest, name)
);

-- Documents the task could not make (the store's ingest_errors, without a run).
CREATE TABLE ingest_errors (
    path        TEXT NOT NULL,
    error       TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
