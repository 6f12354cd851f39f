import type pg from 'pg';
import { AppError } from '../errors';
import { quoteIdent } from './replication';

/**
 * What a PostgreSQL branch must allow before it can be streamed (`tributary cdc setup`): logical
 * WAL, a role that may replicate and read the tables, a key (or REPLICA IDENTITY FULL) on every
 * table so updates and deletes name their row, and the publication of the branch's tables.
 */

/** The publication and the slot of a branch: deterministic, so setup, start, status and drop agree. */
export function cdcNames(branch: string): { publication: string; slot: string } {
  const safe = branch.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 50);
  return { publication: `tributary_${safe}`, slot: `tributary_${safe}` };
}

/** A missing setting or grant, and the SQL an administrator runs to provide it. */
export interface Missing { problem: string; sql: string }

/** A source table of tables.json resolved on the server. */
export interface SourceTable { entry: string; oid: number; schema: string; name: string; hasKey: boolean; replicaIdentity: string; owner: string }

/** Resolve `schema.table` as written in tables.json (unquoted names fold to lower case, as PostgreSQL does; failing that, as written). */
export async function resolveTables(c: pg.ClientBase, entries: string[]): Promise<{ found: SourceTable[]; missing: string[] }> {
  const found: SourceTable[] = []; const missing: string[] = [];
  for (const e of entries) {
    const r = await c.query(`SELECT c.oid::int AS oid, n.nspname AS schema, c.relname AS name, c.relreplident AS ident, pg_get_userbyid(c.relowner) AS owner,
        EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary) AS has_key
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.oid = COALESCE(to_regclass($1), to_regclass(lower($1)))`, [e]);
    const x = r.rows[0];
    if (!x) { missing.push(e); continue; }
    found.push({ entry: e, oid: x.oid, schema: x.schema, name: x.name, hasKey: x.has_key, replicaIdentity: x.ident, owner: x.owner });
  }
  return { found, missing };
}

export const qualified = (t: Pick<SourceTable, 'schema' | 'name'>) => `${quoteIdent(t.schema)}.${quoteIdent(t.name)}`;

/** Everything the branch lacks for logical replication of `tables`, with the SQL that fixes each. */
export async function checkSource(c: pg.ClientBase, tables: SourceTable[], unresolved: string[]): Promise<Missing[]> {
  const out: Missing[] = [];
  const wal = (await c.query(`SELECT current_setting('wal_level') AS v, current_setting('max_replication_slots')::int AS slots`)).rows[0];
  if (wal.v !== 'logical') out.push({ problem: `wal_level is ${wal.v}, logical decoding needs logical`, sql: `ALTER SYSTEM SET wal_level = logical;  -- then restart the server` });
  if (wal.slots < 1) out.push({ problem: 'max_replication_slots is 0', sql: `ALTER SYSTEM SET max_replication_slots = 10;  -- then restart the server` });
  const role = (await c.query(`SELECT current_user AS name, rolreplication AS repl, rolsuper AS su FROM pg_roles WHERE rolname = current_user`)).rows[0];
  if (!role.repl && !role.su) out.push({ problem: `role ${role.name} may not replicate`, sql: `ALTER ROLE ${quoteIdent(role.name)} WITH REPLICATION;` });
  for (const e of unresolved) out.push({ problem: `table ${e} (tables.json) does not exist on the branch`, sql: `-- create ${e}, or remove its entry from tables.json` });
  for (const t of tables) {
    if (!t.hasKey && t.replicaIdentity !== 'f') {
      out.push({ problem: `table ${t.schema}.${t.name} has no primary key: its updates and deletes would not name their row`, sql: `ALTER TABLE ${qualified(t)} REPLICA IDENTITY FULL;` });
    }
    const sel = (await c.query(`SELECT has_table_privilege(current_user, $1::oid, 'SELECT') AS ok`, [t.oid])).rows[0].ok;
    if (!sel) out.push({ problem: `role ${role.name} may not read ${t.schema}.${t.name}`, sql: `GRANT SELECT ON ${qualified(t)} TO ${quoteIdent(role.name)};` });
    if (!role.su && t.owner !== role.name) {
      out.push({ problem: `a publication of ${t.schema}.${t.name} must be created by its owner ${t.owner}`, sql: `GRANT ${quoteIdent(t.owner)} TO ${quoteIdent(role.name)};  -- or let ${t.owner} create the publication` });
    }
  }
  return out;
}

/** Create the branch's publication for exactly these tables (or set its tables when it exists). */
export async function ensurePublication(c: pg.ClientBase, publication: string, tables: SourceTable[]): Promise<void> {
  if (!tables.length) throw new AppError('validation', 'cdc: no table of tables.json to publish', { field: 'tables' });
  const list = tables.map(qualified).join(', ');
  const exists = (await c.query(`SELECT 1 FROM pg_publication WHERE pubname = $1`, [publication])).rowCount;
  await c.query(exists ? `ALTER PUBLICATION ${quoteIdent(publication)} SET TABLE ${list}` : `CREATE PUBLICATION ${quoteIdent(publication)} FOR TABLE ${list}`);
}

/** The slot as the source sees it; null when it does not exist. */
export async function slotInfo(c: pg.ClientBase, slot: string): Promise<{ active: boolean; confirmedFlush: string | null; lagBytes: number | null; retainedBytes: number | null } | null> {
  const r = await c.query(`SELECT active, confirmed_flush_lsn::text AS confirmed,
      pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint AS lag, pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint AS retained
    FROM pg_replication_slots WHERE slot_name = $1`, [slot]);
  const x = r.rows[0];
  if (!x) return null;
  return { active: x.active, confirmedFlush: x.confirmed, lagBytes: x.lag === null ? null : Number(x.lag), retainedBytes: x.retained === null ? null : Number(x.retained) };
}

/** Drop the slot (terminating a session still streaming from it) and the publication. */
export async function dropSlotAndPublication(c: pg.ClientBase, names: { slot: string; publication: string }): Promise<void> {
  await dropSlot(c, names.slot);
  await c.query(`DROP PUBLICATION IF EXISTS ${quoteIdent(names.publication)}`);
}

/** Drop the slot when it exists, terminating a session still streaming from it first. */
export async function dropSlot(c: pg.ClientBase, slot: string): Promise<void> {
  const names = { slot };
  await c.query(`SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL`, [names.slot]);
  for (let i = 0; i < 50; i++) {
    const r = await c.query(`SELECT active FROM pg_replication_slots WHERE slot_name = $1`, [names.slot]);
    if (!r.rowCount) break;
    if (!r.rows[0].active) { await c.query(`SELECT pg_drop_replication_slot($1)`, [names.slot]); break; }
    // the terminated walsender releases the slot a moment later
    await new Promise((res) => setTimeout(res, 100));
  }
}
