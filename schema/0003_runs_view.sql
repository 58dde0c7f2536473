-- Why: `corpus runs`, `--since RUN` and notebooks need the run records through a public view.

CREATE VIEW v_runs AS
SELECT r.id             AS run,
       r.command        AS command,
       r.args           AS args,
       r.started_at     AS started_at,
       r.finished_at    AS finished_at,
       r.corpus_version AS corpus_version,
       r.counts         AS counts,
       r.errors         AS errors
FROM runs r;
