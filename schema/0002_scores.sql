-- Why: the paper suite stores its scores; v_scores is their public view (one row per metric
-- value, named by the document's name in the truth's dataset), documented in schema/README.md.

CREATE INDEX metrics_suite_metric ON metrics(suite, metric);

CREATE VIEW v_scores AS
SELECT n.name             AS document,
       ds.name            AS dataset,
       o.provider         AS provider,
       o.provider_version AS provider_version,
       o.model_digest     AS model_digest,
       m.suite            AS suite,
       m.suite_version    AS suite_version,
       m.metric           AS metric,
       m.value            AS value,
       m.computed_at      AS computed_at,
       m.run              AS run,
       t.format           AS truth_format,
       m.trace            AS trace,
       m.output           AS output_id,
       m.truth            AS truth_id,
       d.blob             AS hash,
       d.id               AS document_id
FROM metrics m
JOIN outputs o ON o.id = m.output
JOIN truths t ON t.id = m.truth
JOIN documents d ON d.id = o.document
JOIN datasets ds ON ds.id = t.dataset
JOIN document_names n ON n.document = d.id AND n.dataset = t.dataset;
