-- Control state per LAKE table (issue 21): watermarks, etl_control and run records were keyed by
-- (table_name, branch_id) only, so a load of the same table into another namespace (a `--namespace
-- probe` test run) overwrote the production watermark. They are now keyed by the lake table
-- (namespace + name) and branch. Every existing row was written by a run into the default
-- namespace `etl` (lib/etl/settings.ts), so it is kept, watermark and all, under that namespace.
-- The default stays for writers that predate namespaces; the ETL always names its namespace.

ALTER TABLE etl_meta.control_state ADD COLUMN namespace text NOT NULL DEFAULT 'etl';
ALTER TABLE etl_meta.control_state DROP CONSTRAINT control_state_pkey;
ALTER TABLE etl_meta.control_state ADD PRIMARY KEY (namespace, table_name, branch_id);

ALTER TABLE etl_meta.etl_control ADD COLUMN namespace text NOT NULL DEFAULT 'etl';
ALTER TABLE etl_meta.etl_control DROP CONSTRAINT etl_control_pkey;
ALTER TABLE etl_meta.etl_control ADD PRIMARY KEY (namespace, table_name, branch_id);

-- Rows a unit dropped as duplicate keys under `dedupe: latest` (0 otherwise).
ALTER TABLE etl_meta.etl_run_log ADD COLUMN namespace text NOT NULL DEFAULT 'etl';
ALTER TABLE etl_meta.etl_run_log ADD COLUMN dropped_duplicates bigint NOT NULL DEFAULT 0;
DROP INDEX etl_meta.etl_run_log_table_branch_idx;
CREATE INDEX etl_run_log_table_branch_idx ON etl_meta.etl_run_log (namespace, table_name, branch_id, started_at);
