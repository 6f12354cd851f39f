-- Where a run came from (issue #15): the API (panel, tokens), the CLI (an engine
-- command run in-process, recorded so the Runs page shows it), a flow, or a schedule.
ALTER TABLE job_runs ADD COLUMN source text NOT NULL DEFAULT 'api';
ALTER TABLE job_runs ADD CONSTRAINT job_runs_source_check CHECK (source IN ('api', 'cli', 'flow', 'schedule'));
