-- Why: a shard's outputs carry what they took, as the store's do (schema/0009_output_usage.sql).
ALTER TABLE outputs ADD COLUMN page_count        INTEGER;
ALTER TABLE outputs ADD COLUMN cpu_ms            INTEGER;
ALTER TABLE outputs ADD COLUMN prompt_tokens     INTEGER;
ALTER TABLE outputs ADD COLUMN completion_tokens INTEGER;
ALTER TABLE outputs ADD COLUMN cost_usd          REAL;
