-- Pipelines (saved job specs), flows (DAGs of them with a cron schedule and
-- alert policy), flow runs with one row per node, and a per-run log.
-- No foreign keys into other engines' tables: a job run is referenced by id.

CREATE TABLE pipelines (
  id uuid PRIMARY KEY,
  name text NOT NULL UNIQUE,
  description text NOT NULL DEFAULT '',
  tags text[] NOT NULL DEFAULT '{}',
  kind text NOT NULL,
  params jsonb NOT NULL DEFAULT '{}',
  created_by text,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE flows (
  id uuid PRIMARY KEY,
  name text NOT NULL UNIQUE,
  description text NOT NULL DEFAULT '',
  -- [{id, label?, pipeline? | kind+params, position?}] and [{from, to}]
  nodes jsonb NOT NULL DEFAULT '[]',
  edges jsonb NOT NULL DEFAULT '[]',
  cron text,
  timezone text,
  enabled boolean NOT NULL DEFAULT true,
  catchup text NOT NULL DEFAULT 'skip' CHECK (catchup IN ('skip', 'once')),
  overlap text NOT NULL DEFAULT 'skip' CHECK (overlap IN ('skip', 'queue')),
  max_parallel integer NOT NULL DEFAULT 4 CHECK (max_parallel >= 1),
  alert_on_failure boolean NOT NULL DEFAULT true,
  alert_on_success boolean NOT NULL DEFAULT false,
  alert_long_running_minutes integer CHECK (alert_long_running_minutes >= 1),
  alert_recipients text[] NOT NULL DEFAULT '{}',
  -- name of the smtp connection; null = the only/first smtp connection
  smtp_connection text,
  -- the scheduler's cursor: the last fire time it has dealt with
  schedule_cursor timestamptz(6),
  created_by text,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE flow_runs (
  id uuid PRIMARY KEY,
  flow_id uuid NOT NULL,
  flow_name text NOT NULL,
  -- the fire time for scheduled runs; null for manual ones
  scheduled_for timestamptz(6),
  trigger text NOT NULL CHECK (trigger IN ('schedule', 'manual')),
  status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'skipped')),
  max_parallel integer NOT NULL DEFAULT 4,
  cancel_requested boolean NOT NULL DEFAULT false,
  long_alert_sent boolean NOT NULL DEFAULT false,
  error text,
  created_by text,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  started_at timestamptz(6),
  finished_at timestamptz(6),
  -- one run per fire, whatever the number of schedulers
  CONSTRAINT flow_runs_fire_key UNIQUE (flow_id, scheduled_for)
);
CREATE INDEX flow_runs_flow_idx ON flow_runs (flow_id, created_at DESC);
CREATE INDEX flow_runs_active_idx ON flow_runs (status) WHERE status IN ('queued', 'running');

CREATE TABLE flow_run_nodes (
  flow_run_id uuid NOT NULL REFERENCES flow_runs(id) ON DELETE CASCADE,
  node_id text NOT NULL,
  label text,
  pipeline_id uuid,
  kind text NOT NULL,
  params jsonb NOT NULL DEFAULT '{}',
  -- ids of the nodes this one runs after
  parents text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'queued', 'running', 'succeeded', 'failed', 'skipped', 'cancelled')),
  job_run_id uuid,
  attempts integer NOT NULL DEFAULT 0,
  error text,
  started_at timestamptz(6),
  finished_at timestamptz(6),
  PRIMARY KEY (flow_run_id, node_id)
);
CREATE INDEX flow_run_nodes_job_idx ON flow_run_nodes (job_run_id);

CREATE TABLE flow_run_logs (
  id bigserial PRIMARY KEY,
  flow_run_id uuid NOT NULL REFERENCES flow_runs(id) ON DELETE CASCADE,
  ts timestamptz(6) NOT NULL DEFAULT now(),
  level text NOT NULL,
  message text NOT NULL
);
CREATE INDEX flow_run_logs_run_idx ON flow_run_logs (flow_run_id, id);

-- Every job a pipeline started (by hand or as a flow node): its run history.
CREATE TABLE pipeline_runs (
  id bigserial PRIMARY KEY,
  pipeline_id uuid NOT NULL,
  job_run_id uuid NOT NULL,
  flow_run_id uuid,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX pipeline_runs_pipeline_idx ON pipeline_runs (pipeline_id, created_at DESC);
