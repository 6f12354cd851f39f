-- Probe recommendations (seed 001 §7): one row per probe run; the full panel
-- data (candidates, ramp, warnings) in `recommendation`.
CREATE TABLE slice_probe_recommendations (
  id bigserial PRIMARY KEY,
  -- the UNIQUE_RUN_ID the probe was run for (null when none was given)
  run_id integer,
  table_name text NOT NULL,
  engine text NOT NULL,
  depth text NOT NULL CHECK (depth IN ('lightweight', 'bakeoff', 'adaptive')),
  strategy text NOT NULL CHECK (strategy IN ('rowid', 'column', 'partition')),
  key text,
  chunk_count integer NOT NULL CHECK (chunk_count >= 1),
  -- null = keep configured (lightweight / bakeoff)
  concurrency integer,
  winner_mb_per_sec double precision NOT NULL,
  segment_bytes bigint NOT NULL,
  recommendation jsonb NOT NULL,
  created_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX slice_probe_recommendations_run_id_idx ON slice_probe_recommendations (run_id, created_at);
