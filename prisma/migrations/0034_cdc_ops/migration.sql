-- Streaming CDC, the operator's side (issue 25, point 4): what the panel's live view and the lag
-- alert read. All of it is one row per branch, read by primary key: no scan of run history.
--
-- Lag in seconds needs a time the lake is known complete up to: the source commit time of the
-- last transaction a flush applied, or the moment the stream last had nothing left to apply (the
-- setup's snapshot, an idle keepalive). Rows per second needs the applied-rows counter at two
-- moments: two samples, the newer moved forward at most once a minute by the stream's own writes.
ALTER TABLE etl_meta.cdc_state
  ADD COLUMN source_commit_at timestamptz(6),
  ADD COLUMN caught_up_at timestamptz(6),
  ADD COLUMN rate_rows bigint,
  ADD COLUMN rate_at timestamptz(6),
  ADD COLUMN rate_prev_rows bigint,
  ADD COLUMN rate_prev_at timestamptz(6);

-- The lag alert (TRIBUTARY_CDC_LAG_ALERT_BYTES): whether a branch's slot is over the threshold as
-- the scheduler's leader last checked it. The alert mail and the recovered mail are sent on the
-- change of this row only, queued in the transaction that writes it, so a restart or a second
-- worker never sends one twice.
CREATE TABLE etl_meta.cdc_lag_alerts (
  branch_id text PRIMARY KEY,
  alerting boolean NOT NULL,
  -- the retained WAL seen at the last change of state, and the threshold it was compared with
  retained_bytes bigint,
  threshold_bytes bigint NOT NULL,
  since timestamptz(6) NOT NULL,
  -- job_runs.id of the mail.send job of the last change, when one was queued
  alert_run_id text,
  checked_at timestamptz(6) NOT NULL
);
