-- Why: reports and notebooks compare the newest score of each document / provider version /
-- model / suite / metric without re-deriving "newest" themselves, and group scores by
-- document attributes (source, language, complexity, ...).

CREATE TABLE document_attributes (
    document    INTEGER NOT NULL REFERENCES documents(id),
    dataset     INTEGER NOT NULL REFERENCES datasets(id),
    name        TEXT NOT NULL,
    value       TEXT NOT NULL,
    PRIMARY KEY (document, dataset, name)
);

-- A covering index for reading scores suite by suite without touching the rows (and their
-- traces): `corpus report` scans it.
CREATE INDEX metrics_report
    ON metrics(suite, output, truth, metric, value, computed_at, run, suite_version);

CREATE VIEW v_latest_scores AS
SELECT document, dataset, provider, provider_version, model_digest, suite, suite_version,
       metric, value, computed_at, run, truth_format, trace, output_id, truth_id, hash,
       document_id
FROM (
    SELECT s.*,
           row_number() OVER (
               PARTITION BY s.document_id, s.dataset, s.provider, s.provider_version,
                            s.model_digest, s.suite, s.metric
               ORDER BY s.computed_at DESC, s.output_id DESC, s.suite_version DESC
           ) AS newest
    FROM v_scores s
)
WHERE newest = 1;

CREATE VIEW v_document_attributes AS
SELECT n.name   AS document,
       ds.name  AS dataset,
       a.name   AS attribute,
       a.value  AS value,
       a.document AS document_id
FROM document_attributes a
JOIN datasets ds ON ds.id = a.dataset
JOIN document_names n ON n.document = a.document AND n.dataset = a.dataset;
