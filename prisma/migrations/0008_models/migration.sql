-- SQL models: one row per model or test per run (run, test, build), written as each finishes,
-- so the Models page shows live results, the last status of every model and its history.
CREATE TABLE model_results (
  id bigserial PRIMARY KEY,
  -- job_runs.id of the models.* job, or 'cli-…' for a CLI run
  run_id text NOT NULL,
  command text NOT NULL CHECK (command IN ('run', 'test', 'build')),
  node text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('model', 'test')),
  status text NOT NULL CHECK (status IN ('success', 'error', 'skipped', 'pass', 'fail', 'warn')),
  materialized text,
  rows bigint,
  duration_ms integer NOT NULL DEFAULT 0,
  sql text,
  error text,
  -- first 100 failing rows of a test (json, not jsonb: it keeps the columns in their query order)
  failing_rows json,
  skipped_because text,
  target text NOT NULL DEFAULT 'embedded',
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX model_results_run_idx ON model_results (run_id);
CREATE INDEX model_results_node_idx ON model_results (kind, node, created_at DESC);
