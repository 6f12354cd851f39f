import crypto from 'node:crypto';
import { AppError } from '../errors';
import { quoteIdent, relationName } from './project';
import { planSchemaChange } from './schema-change';
import { sessionSettings, settingsClause, type SettingValue } from './session-settings';
import type { Target } from './target';
import type { ModelConfig, ModelNode } from './types';

const lit = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** `ENGINE = MergeTree() ORDER BY (a, b) PARTITION BY p` for a table/incremental model. */
export function engineClause(c: ModelConfig): string {
  const engine = c.engine ?? 'MergeTree()';
  const mergeTree = /MergeTree/i.test(engine);
  let s = `ENGINE = ${engine}`;
  if (mergeTree) {
    const ob = c.order_by === undefined ? 'tuple()' : Array.isArray(c.order_by) ? `(${c.order_by.join(', ')})` : c.order_by;
    s += ` ORDER BY ${ob}`;
    if (c.partition_by) s += ` PARTITION BY ${c.partition_by}`;
    // Lake columns are mostly Nullable; ClickHouse refuses them in a key without this.
    if (c.order_by !== undefined || c.partition_by) s += ' SETTINGS allow_nullable_key = 1';
  } else if (c.partition_by) s += ` PARTITION BY ${c.partition_by}`;
  return s;
}

/** Model SQL without the trailing `;` users often leave. */
export function bodySql(sql: string): string {
  return sql.replace(/[\s;]+$/, '');
}

/**
 * Output names as every dbt adapter gives them: ClickHouse names an
 * unaliased `customers.customer_id` in a query with joins
 * `customers.customer_id`, where PostgreSQL (and SQL) name it
 * `customer_id`. Each such name becomes its last part, unless another
 * column already has that name (PostgreSQL would then refuse the table).
 */
export function topLevelNames(names: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set(names);
  for (const n of names) {
    const m = /^(?:[A-Za-z_][A-Za-z0-9_$]*\.)+([A-Za-z_][A-Za-z0-9_$]*)$/.exec(n);
    if (!m || taken.has(m[1])) continue;
    out.set(n, m[1]); taken.add(m[1]);
  }
  return out;
}

/**
 * The SELECT a model materialises: the rendered SQL as a subquery, its
 * columns renamed to their top-level names (topLevelNames), run under the
 * dbt session settings (session-settings.ts) and the model's own
 * `query_settings`. A view stores the SETTINGS clause, so reading it later
 * from any session joins as the model was written.
 */
export async function modelSelect(target: Target, sql: string, settings: Record<string, SettingValue> | undefined, signal?: AbortSignal): Promise<string> {
  const clause = settingsClause(sessionSettings(settings));
  const probe = await target.query(`SELECT * FROM (\n${sql}\n) LIMIT 0${clause}`, signal);
  const renamed = topLevelNames(probe.columns.map((c) => c.name));
  const list = renamed.size ? probe.columns.map((c) => (renamed.has(c.name) ? `${quoteIdent(c.name)} AS ${quoteIdent(renamed.get(c.name)!)}` : quoteIdent(c.name))).join(', ') : '*';
  return `SELECT ${list} FROM (\n${sql}\n)${clause}`;
}

export async function existing(target: Target, name: string): Promise<'view' | 'table' | null> {
  const r = await target.query(`SELECT engine FROM system.tables WHERE database = ${lit(target.database)} AND name = ${lit(name)}`);
  if (!r.rows.length) return null;
  return /View/.test(String(r.rows[0].engine)) ? 'view' : 'table';
}

async function columns(target: Target, name: string): Promise<{ name: string; type: string }[]> {
  const r = await target.query(`SELECT name, type FROM system.columns WHERE database = ${lit(target.database)} AND table = ${lit(name)} ORDER BY position`);
  return r.rows.map((x) => ({ name: String(x.name), type: String(x.type) }));
}

async function count(target: Target, rel: string): Promise<number> {
  const r = await target.query(`SELECT count() AS n FROM ${rel}`);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * Put `fresh` in place of `name` atomically: EXCHANGE TABLES where the
 * database engine supports it (Atomic, the default), otherwise one RENAME
 * statement moving both (Ordinary databases). Readers see the old table or
 * the new one, never an empty or half-built one.
 */
async function swapIn(target: Target, fresh: string, name: string, signal?: AbortSignal): Promise<void> {
  const db = target.database;
  try {
    await target.command(`EXCHANGE TABLES ${relationName(db, fresh)} AND ${relationName(db, name)}`, signal);
  } catch (e) {
    if (!/EXCHANGE|NOT_IMPLEMENTED|not supported/i.test((e as Error).message)) throw e;
    const old = `${name}__old_${crypto.randomBytes(3).toString('hex')}`;
    await target.command(`RENAME TABLE ${relationName(db, name)} TO ${relationName(db, old)}, ${relationName(db, fresh)} TO ${relationName(db, name)}`, signal);
    await target.command(`DROP TABLE IF EXISTS ${relationName(db, old)} SYNC`, signal);
    return;
  }
  await target.command(`DROP TABLE IF EXISTS ${relationName(db, fresh)} SYNC`, signal);
}

/** A freshly built side table `tmp` becomes `name`, whatever stood there (a table: swapped atomically; a view: dropped first). */
export async function putInPlace(target: Target, tmp: string, name: string, now: 'view' | 'table' | null, signal?: AbortSignal, run: (sql: string) => Promise<void> = (sql) => target.command(sql, signal)): Promise<void> {
  const db = target.database;
  if (now === 'table') { await swapIn(target, tmp, name, signal); return; }
  if (now === 'view') await run(`DROP VIEW ${relationName(db, name)} SYNC`);
  await run(`RENAME TABLE ${relationName(db, tmp)} TO ${relationName(db, name)}`);
}

export interface MaterializeOptions {
  fullRefresh: boolean;
  signal?: AbortSignal;
  /** Render the model's SQL; `incremental` says what is_incremental() returns. */
  render(incremental: boolean): string;
  /** Refuse the rendered SQL before anything is created from it (the SQL allow-list). (Default: none) */
  check?(sql: string): Promise<void>;
  /** Every statement sent, for the result's SQL and the log. */
  onStatement?(sql: string): void;
  /** An incremental run met changed columns: what changed and what on_schema_change did (schema-change.ts). (Default: none) */
  onSchemaChange?(note: string): void;
}

/** Build one model in the target; returns rows written (null for views) and the rendered select. */
export async function materialize(target: Target, m: ModelNode, o: MaterializeOptions): Promise<{ rows: number | null; sql: string }> {
  const db = target.database;
  const rel = relationName(db, m.name);
  const run = async (sql: string) => { o.onStatement?.(sql); await target.command(sql, o.signal); };
  await run(`CREATE DATABASE IF NOT EXISTS ${quoteIdent(db)}`);
  const now = await existing(target, m.name);
  const c = m.config;
  if (c.materialized === 'view') {
    const sql = bodySql(o.render(false));
    await o.check?.(sql);
    const select = await modelSelect(target, sql, c.query_settings, o.signal);
    if (now === 'table') await run(`DROP TABLE ${rel} SYNC`);
    await run(`CREATE OR REPLACE VIEW ${rel} AS\n${select}`);
    return { rows: null, sql };
  }
  const suffix = crypto.randomBytes(4).toString('hex');
  const tmp = `${m.name}__tmp_${suffix}`;
  const tmpRel = relationName(db, tmp);
  const cleanup = async (...names: string[]) => { for (const n of names) await target.command(`DROP TABLE IF EXISTS ${relationName(db, n)} SYNC`).catch(() => {}); }; // cleanup of side tables: a failure here must not hide the build's own error
  const incremental = c.materialized === 'incremental' && now === 'table' && !o.fullRefresh;
  const sql = bodySql(o.render(incremental));
  await o.check?.(sql);
  try {
    const select = await modelSelect(target, sql, c.query_settings, o.signal);
    if (!incremental) {
      await run(`CREATE TABLE ${tmpRel} ${engineClause(c)} AS\n${select}`);
      const rows = await count(target, tmpRel);
      await putInPlace(target, tmp, m.name, now, o.signal, run);
      return { rows, sql };
    }
    // Incremental: the new rows into a side table first, so a schema change is seen before anything moves.
    await run(`CREATE TABLE ${tmpRel} ENGINE = MergeTree() ORDER BY tuple() AS\n${select}`);
    const change = planSchemaChange(m.name, await columns(target, m.name), await columns(target, tmp), c.on_schema_change ?? 'ignore');
    if (change.note) o.onSchemaChange?.(change.note);
    const rows = await count(target, tmpRel);
    const key = c.unique_key === undefined ? [] : Array.isArray(c.unique_key) ? c.unique_key : c.unique_key.split(',').map((s) => s.trim()).filter(Boolean);
    const cols = (names: string[]) => names.map(quoteIdent).join(', ');
    if (!key.length && !change.alter.length) {
      await run(`INSERT INTO ${rel} (${cols(change.insert)}) SELECT ${cols(change.insert)} FROM ${tmpRel}`);
      return { rows, sql };
    }
    // Built aside and exchanged: the table's definition, its columns altered as on_schema_change says, the old rows
    // (with unique_key, those whose key is not among the new rows'), then the new rows.
    const next = `${m.name}__new_${suffix}`;
    const nextRel = relationName(db, next);
    const k = key.length === 1 ? key[0] : `(${key.join(', ')})`;
    try {
      await run(`CREATE TABLE ${nextRel} AS ${rel}`);
      for (const a of change.alter) await run(`ALTER TABLE ${nextRel} ${a}`);
      const notReplaced = key.length ? ` WHERE ${k} NOT IN (SELECT ${key.join(', ')} FROM ${tmpRel}) SETTINGS transform_null_in = 1` : '';
      await run(`INSERT INTO ${nextRel} (${cols(change.keep)}) SELECT ${cols(change.keep)} FROM ${rel}${notReplaced}`);
      await run(`INSERT INTO ${nextRel} (${cols(change.insert)}) SELECT ${cols(change.insert)} FROM ${tmpRel}`);
      await swapIn(target, next, m.name, o.signal);
    } finally { await cleanup(next); }
    return { rows, sql };
  } finally { await cleanup(tmp); }
}
