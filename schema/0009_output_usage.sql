-- Why: users compare parsers on cost and speed beside their scores (ParseBench and
-- pdf-parse-bench print s/page and ¢/page), so every output records what it took: the pages
-- it read, the CPU time of the process that did the work (the worker, the Python worker or
-- the command and its children; NULL where the work ran elsewhere, as behind an endpoint),
-- and for models behind an endpoint the tokens of every reply and their cost at the prices
-- in force (NULL where no price is known: an unknown price is no cost, never 0).
-- docs/endpoints.md §Cost and speed.

ALTER TABLE outputs ADD COLUMN page_count        INTEGER;
ALTER TABLE outputs ADD COLUMN cpu_ms            INTEGER;
ALTER TABLE outputs ADD COLUMN prompt_tokens     INTEGER;
ALTER TABLE outputs ADD COLUMN completion_tokens INTEGER;
ALTER TABLE outputs ADD COLUMN cost_usd          REAL;

DROP VIEW v_outputs;
CREATE VIEW v_outputs AS
SELECT n.name              AS document,
       ds.name             AS dataset,
       d.blob              AS hash,
       o.provider          AS provider,
       o.provider_version  AS provider_version,
       o.model_digest      AS model_digest,
       o.config            AS config,
       o.pages             AS page_selection,
       o.status            AS status,
       o.error             AS error,
       o.wall_ms           AS wall_ms,
       o.device            AS device,
       o.run               AS run,
       o.created_at        AS created_at,
       o.cache_key         AS cache_key,
       o.blob              AS output_blob,
       o.id                AS output_id,
       d.id                AS document_id,
       o.page_count        AS page_count,
       o.cpu_ms            AS cpu_ms,
       o.prompt_tokens     AS prompt_tokens,
       o.completion_tokens AS completion_tokens,
       o.cost_usd          AS cost_usd
FROM outputs o
JOIN documents d ON d.id = o.document
JOIN document_names n ON n.document = d.id
JOIN datasets ds ON ds.id = n.dataset;
