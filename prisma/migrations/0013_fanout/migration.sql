-- Fan-out of a run's units over workers (issue 16): each attempt of a unit is its own
-- internal job run; this table ties the attempts to their coordinator run. The coordinator
-- takes exactly one successful attempt per unit; a failed attempt (a dead worker's, reaped)
-- gets a new row with the next attempt number.
CREATE TABLE job_units (
  parent_run_id uuid NOT NULL REFERENCES job_runs(id) ON DELETE CASCADE,
  unit_key text NOT NULL,
  attempt integer NOT NULL,
  child_run_id uuid NOT NULL REFERENCES job_runs(id) ON DELETE CASCADE,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (parent_run_id, unit_key, attempt)
);
CREATE UNIQUE INDEX job_units_child_run_id_idx ON job_units (child_run_id);
