-- Data-quality reconciliation results (seed 000 "Result table — etl_dq_results"), append only:
-- one row per (run, table, branch). Column names follow the seed: oracle_* / *_in_oracle mean
-- "the source branch" whatever its engine (Oracle or PostgreSQL); iceberg_* / *_in_iceberg mean the lake.
CREATE TABLE etl_meta.etl_dq_results (
  id bigserial PRIMARY KEY,
  pipeline_run_id text NOT NULL CHECK (pipeline_run_id LIKE 'dq-%'),
  table_name text NOT NULL,
  branch_id text NOT NULL,
  -- the shared window of both checks (null: compared in full / no upper bound)
  window_start text,
  window_end text,
  window_note text,
  -- lake snapshot both checks read
  lake_snapshot_id text,
  -- row-count check
  oracle_row_count bigint,
  iceberg_row_count bigint,
  row_count_delta bigint,
  -- row-hash check (null when run with --no-hash)
  hash_matched bigint,
  hash_only_in_oracle bigint,
  hash_only_in_iceberg bigint,
  hash_mismatch bigint,
  hash_total_delta bigint,
  hash_columns text[],
  columns_only_in_oracle text[],
  columns_only_in_iceberg text[],
  -- up to N keys per category: {"only_in_source":[{KEY:..}], "only_in_lake":[..], "hash_mismatch":[{"key":{..},"columns":[..]}]}
  example_keys jsonb,
  -- repair outcome when --repair ran: {"merged":n,"deleted":n,"recheck":{...},"status":...}
  repair jsonb,
  status text NOT NULL CHECK (status IN ('OK', 'MISMATCH', 'ERROR', 'SKIPPED')),
  error_details text,
  checked_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX etl_dq_results_run_idx ON etl_meta.etl_dq_results (pipeline_run_id);
CREATE INDEX etl_dq_results_table_branch_idx ON etl_meta.etl_dq_results (table_name, branch_id, checked_at DESC);
COMMENT ON COLUMN etl_meta.etl_dq_results.oracle_row_count IS 'windowed row count at the source branch (Oracle or PostgreSQL)';
COMMENT ON COLUMN etl_meta.etl_dq_results.hash_only_in_oracle IS 'rows only at the source branch (Oracle or PostgreSQL)';
COMMENT ON COLUMN etl_meta.etl_dq_results.columns_only_in_oracle IS 'columns only at the source branch (Oracle or PostgreSQL), excluded from the hash';
