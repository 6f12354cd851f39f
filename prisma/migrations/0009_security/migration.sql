-- Security (issue #13): revocable sessions, login throttling, the audit log.

-- A panel session carries the version current at sign-in; bumping it (sign-out,
-- password or role change, "end sessions") ends every older session at once.
ALTER TABLE users ADD COLUMN session_version integer NOT NULL DEFAULT 0;

-- rate-limiter-flexible's Postgres store (its own layout: key, points, expire
-- in epoch ms). Shared by every web process, so limits hold across processes.
CREATE TABLE login_throttle (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);

-- Who changed what, when, from where. before/after hold non-secret fields only.
CREATE TABLE audit_events (
  id bigserial PRIMARY KEY,
  at timestamptz(6) NOT NULL DEFAULT now(),
  -- `user:<name>`, `token:<user>/<token>`, `cli`, `system`, or the name tried at a failed login
  actor text NOT NULL,
  -- `<resource>.<verb>`: user.create, token.revoke, connection.update, job.start, login.failure…
  action text NOT NULL,
  -- what was acted on: `user:<name>`, `connection:<name>`, `job:<id>`…
  target text,
  before jsonb,
  after jsonb,
  -- client address as the web process saw it (null for the CLI and the worker)
  address text
);
CREATE INDEX audit_events_at_idx ON audit_events (at DESC, id DESC);
CREATE INDEX audit_events_actor_idx ON audit_events (actor, id DESC);
CREATE INDEX audit_events_action_idx ON audit_events (action, id DESC);
CREATE INDEX audit_events_target_idx ON audit_events (target, id DESC);

-- Append-only. The application connects as the role that owns its tables, so
-- REVOKE alone would not bind it (an owner can grant itself back); a trigger
-- binds every role, owner included. Removing it takes DDL (DROP TRIGGER), which
-- is itself visible and outside what the application ever runs.
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_events_no_update BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
