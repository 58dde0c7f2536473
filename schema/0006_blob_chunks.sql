-- Why: one SQLite value holds at most 1,000,000,000 bytes, and scanned books, atlases and map
-- series are larger. A blob larger than one chunk (64 MiB) is stored as numbered chunks in
-- blob_chunks, its row in blobs keeping the hash (of all the bytes, as before), the size and
-- an empty data value; blobs.chunks says how many. Blobs of one chunk or less stay inline
-- (chunks = 0), so existing stores keep their layout and every identity.

ALTER TABLE blobs ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0;

CREATE TABLE blob_chunks (
    blob        TEXT NOT NULL REFERENCES blobs(hash),
    seq         INTEGER NOT NULL,          -- 0, 1, ...: the chunk's place in the blob
    data        BLOB NOT NULL,
    PRIMARY KEY (blob, seq)
);
