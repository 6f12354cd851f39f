-- ETL control and observability (seed 000 §6), in schema etl_meta (created by 0001).

-- Authoritative CDC watermarks per (table, branch): advanced only after the
-- lake commit that holds the rows up to them.
CREATE TABLE etl_meta.control_state (
  table_name text NOT NULL,
  branch_id text NOT NULL,
  last_cdc_value text,
  last_date_value text,
  last_run_id text,
  last_mode text,
  snapshot_id text,
  updated_at timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (table_name, branch_id)
);

-- Queryable twin of control_state with the last run's outcome, upserted on (table_name, branch_id).
CREATE TABLE etl_meta.etl_control (
  table_name text NOT NULL,
  branch_id text NOT NULL,
  last_cdc_value text,
  last_date_value text,
  status text NOT NULL,
  row_count bigint NOT NULL DEFAULT 0,
  duration_ms bigint NOT NULL DEFAULT 0,
  pipeline_run_id text,
  last_run_started_at timestamptz(6),
  last_run_finished_at timestamptz(6),
  last_success_at timestamptz(6),
  error_details text,
  updated_at timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (table_name, branch_id)
);

-- One row per (run, table, branch), append only.
CREATE TABLE etl_meta.etl_run_log (
  id bigserial PRIMARY KEY,
  pipeline_run_id text NOT NULL,
  table_name text NOT NULL,
  branch_id text NOT NULL,
  mode text NOT NULL,
  category text,
  status text NOT NULL,
  row_count bigint NOT NULL DEFAULT 0,
  started_at timestamptz(6) NOT NULL,
  finished_at timestamptz(6),
  duration_ms bigint,
  attempts integer NOT NULL DEFAULT 1,
  write_disposition text,
  schema_discrepancy jsonb,
  error_details text,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX etl_run_log_run_idx ON etl_meta.etl_run_log (pipeline_run_id);
CREATE INDEX etl_run_log_table_branch_idx ON etl_meta.etl_run_log (table_name, branch_id, started_at);
