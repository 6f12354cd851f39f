-- Slice orchestration (seed 001): one row per slice per registration, the runs
-- they belong to (template, watermark, verdict, settings) and the run's event log.

CREATE TABLE slice_runs (
  run_id integer PRIMARY KEY,
  -- bumped each time the run's slices are (re)registered (fresh start, --force-fresh)
  generation integer NOT NULL DEFAULT 1,
  executor text NOT NULL DEFAULT 'striim' CHECK (executor IN ('striim', 'native')),
  template_tql text,
  query_file text,
  settings jsonb NOT NULL DEFAULT '{}',
  source_engine text,
  watermark_label text,
  watermark_value text,
  watermark_captured_at timestamptz(6),
  watermark_source_dsn text,
  -- the seed's fresh-run marker: set when slices are registered, cleared on clean completion and by clear
  fresh_marker boolean NOT NULL DEFAULT false,
  verdict text CHECK (verdict IN ('FINISHED', 'FINISHED WITH FAILURES', 'INTERRUPTED')),
  lock_holder text,
  api_retries integer NOT NULL DEFAULT 0,
  api_reauths integer NOT NULL DEFAULT 0,
  started_at timestamptz(6),
  finished_at timestamptz(6),
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE striim_orchestration (
  id bigserial PRIMARY KEY,
  roworder integer NOT NULL,
  uniquerunid integer NOT NULL,
  generation integer NOT NULL DEFAULT 1,
  query text NOT NULL,
  appname text,
  targettbl text NOT NULL,
  status text NOT NULL DEFAULT 'NEW'
    CHECK (status IN ('NEW', 'RUNNING', 'COMPLETED', 'COMPLETED-FAILEDDROP', 'FAILED', 'QUARANTINED')),
  namespace text,
  started_datetime timestamptz(6),
  finished_datetime timestamptz(6),
  notes text,
  iscurrentrow boolean NOT NULL DEFAULT true,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  slice_lo text,
  slice_hi text,
  slice_predicate text,
  rows_read bigint,
  rows_written bigint,
  executor text,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX striim_orchestration_run_idx ON striim_orchestration (uniquerunid, generation, status);
CREATE INDEX striim_orchestration_current_idx ON striim_orchestration (uniquerunid, iscurrentrow);
CREATE UNIQUE INDEX striim_orchestration_slice_uq ON striim_orchestration (uniquerunid, generation, roworder);

CREATE TABLE slice_run_events (
  id bigserial PRIMARY KEY,
  run_id integer NOT NULL,
  ts timestamptz(6) NOT NULL DEFAULT now(),
  level text NOT NULL DEFAULT 'info' CHECK (level IN ('debug', 'info', 'warn', 'error')),
  -- 'log', 'appeared' (an app/slice started), 'finished' (an app/slice ended)
  kind text NOT NULL DEFAULT 'log',
  slice integer,
  message text NOT NULL,
  fields jsonb
);
CREATE INDEX slice_run_events_run_idx ON slice_run_events (run_id, id);
