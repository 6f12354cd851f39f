import type pg from 'pg';

export interface AuditRow {
  id: string; at: string; actor: string; action: string; target: string | null;
  before: unknown; after: unknown; address: string | null;
}

export interface AuditFilter {
  /** Exact actor (`user:alice`). */
  actor?: string;
  /** Exact action (`user.update`), or a prefix ending in `.` (`login.`). */
  action?: string;
  /** Exact target, or a prefix ending in `:` (`connection:`). */
  target?: string;
  since?: Date;
  until?: Date;
  /** Only events with a smaller id: the next page after the last one seen. */
  beforeId?: string;
  /** Page size. (Default: 100, at most 1000) */
  limit?: number;
}

/** Audit events, newest first, filtered; page on with `beforeId` = the last row's id. */
export async function listAuditEvents(pool: pg.Pool, f: AuditFilter = {}): Promise<AuditRow[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  const add = (sql: string, v: unknown) => { args.push(v); where.push(sql.replace('?', `$${args.length}`)); };
  if (f.actor) add('actor = ?', f.actor);
  if (f.action) f.action.endsWith('.') ? add("action LIKE ? || '%'", f.action.replace(/[%_\\]/g, '\\$&')) : add('action = ?', f.action);
  if (f.target) f.target.endsWith(':') ? add("target LIKE ? || '%'", f.target.replace(/[%_\\]/g, '\\$&')) : add('target = ?', f.target);
  if (f.since) add('at >= ?', f.since);
  if (f.until) add('at < ?', f.until);
  if (f.beforeId) add('id < ?::bigint', f.beforeId);
  args.push(Math.min(Math.max(f.limit ?? 100, 1), 1000));
  const r = await pool.query(
    `SELECT * FROM audit_events ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT $${args.length}`, args);
  return r.rows.map((x) => ({
    id: String(x.id), at: (x.at as Date).toISOString(), actor: x.actor, action: x.action, target: x.target,
    before: x.before, after: x.after, address: x.address,
  }));
}
