-- Why: a corrected truth for a document supersedes the earlier one (a newer ingest of the same
-- document, dataset, format and part, or `corpus ingest --supersedes ID`), and every score
-- keeps the truth it used; this table records what supersedes what, so that `eval` scores the
-- newest version, `report` says which versions its figures use and compares two of them.
-- v_truths is its public view (documented in schema/README.md); the rules are in
-- docs/truth-versions.md.

CREATE TABLE truth_supersedes (
    truth       INTEGER NOT NULL REFERENCES truths(id),   -- the newer truth
    supersedes  INTEGER NOT NULL REFERENCES truths(id),   -- the truth it replaces
    how         TEXT NOT NULL CHECK (how IN ('newer-ingest', 'explicit')),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (truth, supersedes),
    CHECK (truth > supersedes)             -- newer supersedes older: no cycles
);
CREATE INDEX truth_supersedes_old ON truth_supersedes(supersedes);

-- The truths stored before this migration: within each (document, dataset, format, part),
-- each file supersedes the one ingested before it, which is what "the newest is used" meant.
INSERT INTO truth_supersedes (truth, supersedes, how, created_at)
SELECT id, prev, 'newer-ingest', created_at FROM (
    SELECT id, created_at,
           lag(id) OVER (PARTITION BY document, dataset, format, part ORDER BY id) AS prev
    FROM truths)
WHERE prev IS NOT NULL;

-- One row per stored truth file, with its version: 1 for a truth that supersedes none, else
-- one more than the highest version it supersedes; `latest` is 1 for a truth nothing
-- supersedes (the one `eval` scores by default).
CREATE VIEW v_truths AS
WITH RECURSIVE chain(truth, version) AS (
    SELECT t.id, 1 FROM truths t
    WHERE NOT EXISTS (SELECT 1 FROM truth_supersedes s WHERE s.truth = t.id)
    UNION ALL
    SELECT s.truth, c.version + 1 FROM truth_supersedes s JOIN chain c ON c.truth = s.supersedes
),
versions(truth, version) AS (SELECT truth, max(version) FROM chain GROUP BY truth),
links(truth, supersedes) AS (
    SELECT truth, group_concat(supersedes) FROM truth_supersedes GROUP BY truth
),
later(truth, superseded_by) AS (
    SELECT supersedes, group_concat(truth) FROM truth_supersedes GROUP BY supersedes
)
SELECT n.name                      AS document,
       ds.name                     AS dataset,
       t.format                    AS format,
       t.part                      AS part,
       v.version                   AS version,
       (l2.truth IS NULL)          AS latest,
       l.supersedes                AS supersedes,
       l2.superseded_by            AS superseded_by,
       t.source_path               AS source_path,
       t.created_at                AS ingested_at,
       t.blob                      AS truth_blob,
       t.id                        AS truth_id,
       d.blob                      AS hash,
       d.id                        AS document_id
FROM truths t
JOIN documents d ON d.id = t.document
JOIN datasets ds ON ds.id = t.dataset
JOIN document_names n ON n.document = t.document AND n.dataset = t.dataset
LEFT JOIN versions v ON v.truth = t.id
LEFT JOIN links l ON l.truth = t.id
LEFT JOIN later l2 ON l2.truth = t.id;
