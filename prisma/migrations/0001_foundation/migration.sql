-- Foundation: users, tokens, connections, job runs and their logs, settings.
CREATE SCHEMA IF NOT EXISTS etl_meta;

CREATE TABLE users (
  id uuid PRIMARY KEY,
  name text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  created_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE api_tokens (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  last_used_at timestamptz(6),
  revoked_at timestamptz(6)
);

CREATE TABLE connections (
  id uuid PRIMARY KEY,
  name text NOT NULL UNIQUE,
  kind text NOT NULL,
  is_branch boolean NOT NULL DEFAULT false,
  branch_key text UNIQUE,
  params jsonb NOT NULL DEFAULT '{}',
  secrets_enc text,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE job_runs (
  id uuid PRIMARY KEY,
  kind text NOT NULL,
  params jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  created_by text,
  progress_done integer NOT NULL DEFAULT 0,
  progress_total integer,
  attempts integer NOT NULL DEFAULT 0,
  worker_id text,
  queue_job_id uuid,
  heartbeat_at timestamptz(6),
  cancel_requested boolean NOT NULL DEFAULT false,
  error text,
  result jsonb,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  started_at timestamptz(6),
  finished_at timestamptz(6)
);
CREATE INDEX job_runs_status_created_at_idx ON job_runs (status, created_at);
CREATE INDEX job_runs_kind_created_at_idx ON job_runs (kind, created_at);

CREATE TABLE job_logs (
  id bigserial PRIMARY KEY,
  run_id uuid NOT NULL REFERENCES job_runs(id) ON DELETE CASCADE,
  ts timestamptz(6) NOT NULL DEFAULT now(),
  level text NOT NULL,
  message text NOT NULL,
  fields jsonb
);
CREATE INDEX job_logs_run_id_id_idx ON job_logs (run_id, id);

CREATE TABLE settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
