-- Idempotency-Key of the enqueueing routes (issue 28): POST /api/v1/jobs, pipeline runs and
-- flow runs, and the CLI's --idempotency-key. A key is written in the transaction that creates
-- the run it names, so a key never names a run that does not exist, nor a run two keys. Keys
-- live 24 hours (a key older than that is taken afresh; workers delete expired ones).
CREATE TABLE idempotency_keys (
  -- whose key: `user:<users.id>` for the API (a user's session and tokens share keys), `cli` for the command line
  scope text NOT NULL,
  key text NOT NULL,
  -- sha-256 of the request (method, path, canonical JSON body): the same key with another request is refused (422)
  fingerprint text NOT NULL,
  resource_type text NOT NULL CHECK (resource_type IN ('job_run', 'flow_run')),
  resource_id uuid NOT NULL,
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
