import crypto from 'node:crypto';
import type pg from 'pg';
import { AppError } from '../errors';
import { withTransaction } from '../db/with-transaction';

/**
 * Idempotent creation of runs (`Idempotency-Key`, as payment and cloud APIs
 * have it): the first request with a key creates the run and records the key
 * in the same transaction; a repeat within 24 hours gets that run back
 * instead of a new one; the same key with a different request is refused
 * (422 `idempotency_mismatch`, as the IETF draft
 * draft-ietf-httpapi-idempotency-key-header says — Stripe answers 400).
 */
export interface IdempotencyRequest {
  /** Whose key: `user:<users.id>` (API) or `cli`. Keys of different scopes never meet. */
  scope: string;
  /** The client's key: 1–255 printable ASCII characters. */
  key: string;
  /** What was asked (see `requestFingerprint`): a repeat must ask the same. */
  fingerprint: string;
}

export type IdempotentResource = 'job_run' | 'flow_run';

/** How long a key holds. (24 hours, as Stripe keeps them) */
export const IDEMPOTENCY_TTL_HOURS = 24;
const TTL = `interval '${IDEMPOTENCY_TTL_HOURS} hours'`;

/** A key as the client may send it: 1–255 printable ASCII characters (a UUID is the usual choice). */
export function parseIdempotencyKey(raw: string | null | undefined, field = 'Idempotency-Key'): string | undefined {
  if (raw === null || raw === undefined) return undefined;
  const key = raw.trim();
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new AppError('validation', `${field}: must be 1 to 255 printable ASCII characters without spaces (a UUID, say)`, { field });
  }
  return key;
}

/** JSON with object keys sorted, so two equal bodies written in another order fingerprint the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** The fingerprint of a request: its method, path and body (canonical JSON), hashed. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return crypto.createHash('sha256').update(`${method.toUpperCase()} ${path}\n${canonical(body)}`).digest('hex');
}

function mismatch(key: string): AppError {
  return new AppError('idempotency_mismatch',
    `Idempotency-Key '${key}' was used within the last ${IDEMPOTENCY_TTL_HOURS} hours for a different request; use a new key for a new request`,
    { field: 'Idempotency-Key' });
}

/**
 * The run an earlier request with this key created (within 24 hours), or
 * null. Throws 422 when that request was a different one.
 */
export async function findIdempotentRun(q: Pick<pg.Pool, 'query'>, idem: IdempotencyRequest, type: IdempotentResource): Promise<string | null> {
  const r = await q.query(
    `select fingerprint, resource_type, resource_id from idempotency_keys
      where scope = $1 and key = $2 and created_at > now() - ${TTL}`, [idem.scope, idem.key]);
  if (!r.rowCount) return null;
  const row = r.rows[0];
  if (row.fingerprint !== idem.fingerprint || row.resource_type !== type) throw mismatch(idem.key);
  return row.resource_id as string;
}

/** Thrown inside the creating transaction when another request took the key first: rolls the new run back. */
class KeyTaken extends AppError {
  constructor(readonly resourceId: string) { super('conflict', 'idempotency key taken'); }
}

/**
 * Create a run in a transaction and, with a key, record the key in the same
 * transaction. Two requests with one key at once: the second's INSERT waits
 * on the first's (the primary key), then finds it committed, rolls its own
 * run back and answers with the first one. An expired key is taken over.
 * @returns the run's id, and whether it was an earlier request's
 */
export async function createIdempotently(
  pool: pg.Pool, idem: IdempotencyRequest | undefined, type: IdempotentResource,
  create: (client: pg.PoolClient) => Promise<string>,
): Promise<{ id: string; replayed: boolean }> {
  try {
    const id = await withTransaction(pool, async (client) => {
      const id = await create(client);
      if (!idem) return id;
      const took = await client.query(
        `insert into idempotency_keys (scope, key, fingerprint, resource_type, resource_id) values ($1, $2, $3, $4, $5)
         on conflict (scope, key) do update
           set fingerprint = excluded.fingerprint, resource_type = excluded.resource_type, resource_id = excluded.resource_id, created_at = now()
           where idempotency_keys.created_at <= now() - ${TTL}
         returning 1`, [idem.scope, idem.key, idem.fingerprint, type, id]);
      if (took.rowCount) return id;
      // Taken by a request that committed while this one ran: answer with its run, and roll ours back.
      const prior = await client.query('select fingerprint, resource_type, resource_id from idempotency_keys where scope = $1 and key = $2', [idem.scope, idem.key]);
      if (prior.rows[0]?.fingerprint !== idem.fingerprint || prior.rows[0]?.resource_type !== type) throw mismatch(idem.key);
      throw new KeyTaken(prior.rows[0].resource_id);
    });
    return { id, replayed: false };
  } catch (e) {
    if (e instanceof KeyTaken) return { id: e.resourceId, replayed: true };
    throw e;
  }
}

/** Delete keys older than 24 hours (a worker does it now and then; an expired key is ignored anyway). */
export async function pruneIdempotencyKeys(q: Pick<pg.Pool, 'query'>): Promise<number> {
  const r = await q.query(`delete from idempotency_keys where created_at <= now() - ${TTL}`);
  return r.rowCount ?? 0;
}
