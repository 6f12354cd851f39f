-- Freshness expectations (issue 24): the state of every asset with an expectation as the scheduler's
-- leader last checked it, and each change of state. The state row is what a check compares against,
-- so an alert is sent on the transition only, never repeated while the state holds; /metrics and the
-- Overview read it too.
CREATE TABLE asset_freshness (
  -- `lake:<namespace>.<table>` or `model:<name>`
  asset text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('lake_table', 'model')),
  status text NOT NULL CHECK (status IN ('pass', 'warn', 'error', 'unknown')),
  -- lag as of checked_at; readers compute the current lag from last_success_at
  lag_seconds double precision,
  last_success_at timestamptz(6),
  worst_branch text,
  warn_after_seconds double precision,
  error_after_seconds double precision,
  checked_at timestamptz(6) NOT NULL,
  -- when the asset entered this status
  status_since timestamptz(6) NOT NULL
);

-- One row per change of status (append only).
CREATE TABLE asset_freshness_events (
  id bigserial PRIMARY KEY,
  asset text NOT NULL,
  from_status text,
  to_status text NOT NULL,
  lag_seconds double precision,
  -- job_runs.id of the mail.send job that alerted, when one did
  alert_run_id text,
  at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX asset_freshness_events_asset_idx ON asset_freshness_events (asset, at DESC);
