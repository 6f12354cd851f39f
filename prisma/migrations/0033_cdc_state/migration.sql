-- Streaming CDC (issue 25): one row per branch streamed with `cdc: log` (its slot, publication and
-- how far the lake has applied the log), and one per lake table × branch with the LSN its last
-- lake commit holds. The LSN is also in that commit's snapshot summary; a stream resumes from the
-- later of the two and skips what is at or below it, so a restart applies nothing twice.
CREATE TABLE etl_meta.cdc_state (
  branch_id text PRIMARY KEY,
  namespace text NOT NULL,
  slot_name text NOT NULL,
  publication text NOT NULL,
  -- the slot's consistent point: the initial snapshot holds everything up to it
  start_lsn text,
  -- end LSN of the last transaction the lake holds, acknowledged to the source after it was written
  applied_lsn text,
  applied_at timestamptz(6),
  status text NOT NULL CHECK (status IN ('ready', 'streaming', 'stopped', 'failed')),
  error text,
  rows_applied bigint NOT NULL DEFAULT 0,
  -- who streams it now (host:pid), while status = 'streaming'
  owner text,
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE etl_meta.cdc_tables (
  namespace text NOT NULL,
  table_name text NOT NULL,
  branch_id text NOT NULL,
  applied_lsn text NOT NULL,
  snapshot_id text,
  rows_applied bigint NOT NULL DEFAULT 0,
  updated_at timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (namespace, table_name, branch_id)
);
