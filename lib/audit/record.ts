import type { Db } from '../db/prisma';

/** One audit event. before/after hold non-secret fields only (callers pick them). */
export interface AuditEvent {
  /** `user:<name>`, `token:<user>/<token>`, `cli`, `system`, or the name tried at a failed login. */
  actor: string;
  /** `<resource>.<verb>`: `user.create`, `token.revoke`, `connection.update`, `job.start`, `login.failure`… */
  action: string;
  /** What was acted on: `user:<name>`, `connection:<name>`, `job:<id>`. (Default: none) */
  target?: string | null;
  before?: unknown;
  after?: unknown;
  /** Client address as the web process saw it. (Default: none — CLI, worker) */
  address?: string | null;
}

/** Who acts and from where: what routes and the CLI hand to writes that record an event. */
export interface AuditActor { actor: string; address?: string | null }

/** A pg Pool, PoolClient or Client (anything with `query`). */
interface PgLike { query(sql: string, args?: unknown[]): Promise<unknown> }
/** A Prisma client or interactive-transaction client. */
type PrismaLike = Pick<Db, '$executeRawUnsafe'>;

const SQL = 'INSERT INTO audit_events (actor, action, target, before, after, address) VALUES ($1, $2, $3, $4, $5, $6)';

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * Append one event. Pass the transaction of the change itself (a pg client
 * inside BEGIN, or Prisma's `tx`) so the event exists exactly when the change does.
 */
export async function recordAudit(db: PgLike | PrismaLike, e: AuditEvent): Promise<void> {
  const args = [e.actor, e.action, e.target ?? null, json(e.before), json(e.after), e.address ?? null];
  if ('$executeRawUnsafe' in db) {
    await db.$executeRawUnsafe(SQL.replace('$4, $5', '$4::jsonb, $5::jsonb'), ...args);
  } else {
    await db.query(SQL, args);
  }
}
