-- Why: a run made by one task of a cluster array records where it ran (host, scheduler, job,
-- array task, shard), and a run merged in from a shard file keeps its own identity (uid), so
-- that merging the same file twice adds nothing, and says which merge brought it
-- (merged_by, merged_from). v_runs shows the new columns.

ALTER TABLE runs ADD COLUMN uid TEXT;
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN scheduler TEXT;
ALTER TABLE runs ADD COLUMN job_id TEXT;
ALTER TABLE runs ADD COLUMN array_job_id TEXT;
ALTER TABLE runs ADD COLUMN array_task_id TEXT;
ALTER TABLE runs ADD COLUMN shard TEXT;
ALTER TABLE runs ADD COLUMN merged_by INTEGER REFERENCES runs(id);
ALTER TABLE runs ADD COLUMN merged_from TEXT;
CREATE UNIQUE INDEX runs_uid ON runs(uid) WHERE uid IS NOT NULL;

DROP VIEW v_runs;
CREATE VIEW v_runs AS
SELECT r.id             AS run,
       r.command        AS command,
       r.args           AS args,
       r.started_at     AS started_at,
       r.finished_at    AS finished_at,
       r.corpus_version AS corpus_version,
       r.counts         AS counts,
       r.errors         AS errors,
       r.host           AS host,
       r.scheduler      AS scheduler,
       r.job_id         AS job_id,
       r.array_job_id   AS array_job_id,
       r.array_task_id  AS array_task_id,
       r.shard          AS shard,
       r.merged_by      AS merged_by,
       r.merged_from    AS merged_from,
       r.uid            AS uid
FROM runs r;
