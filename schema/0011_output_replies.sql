-- Why: an open-weight model behind an endpoint has no token price, yet its cost is the GPU's
-- time; and its degenerate replies (cut at the token limit, a repeated tail dropped, empty
-- pages), which its users complain about most, were repaired silently and never counted.
-- Every endpoint output now records, per page read: how many pages had a reply cut at the
-- token limit (`finish_reason` = length), how many had a repeated tail removed, and how many
-- gave no text at all; and what its cost rests on: `tokens` (tokens × the price per token) or
-- `gpu-time` (an estimate: the requests' wall time × the GPU's price per hour ÷ the
-- concurrency the server actually ran). NULL: not an endpoint output, or no cost.
-- docs/endpoints.md §Cost and speed.

ALTER TABLE outputs ADD COLUMN pages_cut    INTEGER;
ALTER TABLE outputs ADD COLUMN pages_looped INTEGER;
ALTER TABLE outputs ADD COLUMN pages_empty  INTEGER;
ALTER TABLE outputs ADD COLUMN cost_basis   TEXT;

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
       o.cost_usd          AS cost_usd,
       o.pages_cut         AS pages_cut,
       o.pages_looped      AS pages_looped,
       o.pages_empty       AS pages_empty,
       o.cost_basis        AS cost_basis
FROM outputs o
JOIN documents d ON d.id = o.document
JOIN document_names n ON n.document = d.id
JOIN datasets ds ON ds.id = n.dataset;
