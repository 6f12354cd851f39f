-- Live workers: each worker upserts its row every heartbeat (idle or busy) and
-- deletes it on a clean stop, so the Overview can show workers alive with
-- their heartbeat age. pg-boss 10 records no workers of its own; a row whose
-- heartbeat is old belongs to a worker that died without stopping.
CREATE TABLE workers (
  id text PRIMARY KEY,
  hostname text NOT NULL,
  pid integer NOT NULL,
  concurrency integer NOT NULL,
  started_at timestamptz(6) NOT NULL DEFAULT now(),
  heartbeat_at timestamptz(6) NOT NULL DEFAULT now()
);
