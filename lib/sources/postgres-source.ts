import type pg from 'pg';
import type * as arrow from 'apache-arrow';
import { createPgPool, type PgTlsSettings } from '../db/pg-connect';
import { SlotPool } from '../concurrency';
import { CopyDecoder, type CopyColumn } from './pg-copy-decoder';
import { CopyOutQuery } from './pg-copy-out';
import { firstValueBytes } from './pg-copy-bytes';
import { ARRAY_ELEMENT, OID, pgColumnType, pgWireType, TEXT_OIDS } from './pg-types';

const KNOWN_OIDS = new Set<number>(Object.values(OID));
import { canonicalColumn } from './identifiers';
import { renderNumericProfile } from './render';
import { sameType } from './arrow-types';
import type { BranchSource, ReadStats, ReadTarget, RenderedQuery, SourceColumn } from './types';
import { AppError } from '../errors';

export interface PostgresBranchOptions extends PgTlsSettings {
  branch: string;
  /** libpq-style URL, or discrete settings. */
  connectionString?: string;
  host?: string; port?: number; database?: string; user?: string; password?: string;
  /** Connections this branch may hold at once. (Default: 4) */
  poolSize?: number;
  /** Seconds to wait for a connection before failing (a transient error). (Default: 10) */
  connectTimeoutSeconds?: number;
  /**
   * An exported snapshot (a replication slot's, `pg_export_snapshot()`): every read runs in a
   * REPEATABLE READ transaction that imports it, so all of them see the database exactly as of
   * that point (lib/cdc: the INITIAL of a streamed branch meets its slot). (Default: none)
   */
  snapshot?: string;
}

/**
 * A Postgres branch. Rows are read with `COPY (SELECT …) TO STDOUT (FORMAT
 * binary)` decoded straight into Arrow buffers. COPY takes no bind
 * parameters, so binds are first set as session settings (`set_config` with a
 * real bind) and the query reads them back with `current_setting(…)::type`:
 * no value is ever spliced into SQL text.
 */
export function createPostgresSource(o: PostgresBranchOptions): BranchSource {
  const size = o.poolSize ?? 4;
  const pool = createPgPool({
    connectionString: o.connectionString, host: o.host, port: o.port, database: o.database, user: o.user, password: o.password,
    sslmode: o.sslmode, sslrootcert: o.sslrootcert, sslcert: o.sslcert, sslkey: o.sslkey,
    max: size, connectionTimeoutMillis: (o.connectTimeoutSeconds ?? 10) * 1000, application_name: `tributary-etl:${o.branch}`,
  });
  const slots = new SlotPool(size);
  if (o.snapshot !== undefined && !/^[0-9A-Fa-f-]+$/.test(o.snapshot)) throw new AppError('validation', `sources: branch ${o.branch}: not a snapshot name: ${o.snapshot}`, { field: 'snapshot' });
  const inSnapshot = (c: pg.PoolClient) => importSnapshot(c, o.snapshot);

  async function withClient<T>(signal: AbortSignal | undefined, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const release = await slots.acquire(signal);
    let client: pg.PoolClient | null = null;
    let broken: Error | undefined;
    const onError = (e: Error) => { broken = e; };
    try {
      client = await pool.connect();
      // a checked-out client losing its server emits 'error': without a listener that would crash the process
      client.on('error', onError);
      await inSnapshot(client);
      return await fn(client);
    } catch (e) {
      broken = e as Error;
      throw e;
    } finally {
      client?.off('error', onError);
      // a failed statement may leave the session mid-COPY: never reuse it
      client?.release(broken || o.snapshot !== undefined ? true : undefined);
      release();
    }
  }

  return {
    dialect: 'postgres',
    branch: o.branch,

    async describe(q, signal) {
      return withClient(signal, (c) => describeQuery(c, q));
    },

    async profileNumeric(q, columns, signal) {
      if (!columns.length) return {};
      return withClient(signal, async (c) => {
        const p = renderNumericProfile(q, 'postgres', columns);
        const r = await c.query({ text: p.sql, values: p.binds.map((b) => String(b.value)) });
        const row = r.rows[0] ?? {};
        return Object.fromEntries(columns.map((col, i) => [col, { intDigits: Number(row[`i${i}`] ?? 0), scale: Number(row[`s${i}`] ?? 0) }]));
      });
    },

    read(q, columns, target, opts) {
      return readCopy(q, columns, target, opts);
    },

    async textQuery(sql, signal, opts) {
      return withClient(signal, (c) => readOnly(c, o.snapshot !== undefined, opts?.serial, async () =>
        (await c.query({ text: sql, types: { getTypeParser: () => (x: string) => x } })).rows as Record<string, string | null>[]));
    },

    async bytesQuery(sql, signal, opts) {
      return withClient(signal, (c) => readOnly(c, o.snapshot !== undefined, opts?.serial, () => firstValueBytes(c, sql, signal)));
    },

    async close() { await pool.end().catch(() => {}); }, // closing: a failing close changes nothing the caller can act on
  };

  async function* readCopy(q: RenderedQuery, columns: SourceColumn[], target: ReadTarget, opts: { batchSize: number; signal?: AbortSignal; stats: ReadStats }): AsyncGenerator<arrow.RecordBatch> {
    const release = await slots.acquire(opts.signal);
    let client: pg.PoolClient | null = null;
    let broken: Error | undefined;
    let copy: CopyOutQuery | null = null;
    const onError = (e: Error) => { broken = e; copy?.handleError(Object.assign(e, { transient: true })); };
    const onAbort = () => {
      copy?.handleError(opts.signal!.reason as Error);
      // the server may still be sending: drop the connection rather than drain it
      (client as unknown as { connection?: { stream?: { destroy(): void } } } | null)?.connection?.stream?.destroy();
    };
    try {
      client = await pool.connect();
      client.on('error', onError);
      await inSnapshot(client);
      const sql = await setBinds(client, q);
      const { projection, cols } = copyProjection(columns, target);
      const dec = new CopyDecoder(cols, target, opts.batchSize, opts.stats);
      const ready: arrow.RecordBatch[] = [];
      copy = new CopyOutQuery(`COPY (SELECT ${projection} FROM (${sql}) q) TO STDOUT (FORMAT binary)`, (payload) => {
        for (const b of dec.pushMessage(payload)) ready.push(b);
        return ready.length > 0;
      });
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      client.query(copy as unknown as pg.QueryConfig);
      try {
        for (;;) {
          while (ready.length) yield ready.shift()!;
          copy.resume();
          if (copy.error) throw copy.error;
          if (copy.finished) break;
          await copy.next();
        }
      } finally { opts.signal?.removeEventListener('abort', onAbort); }
      // a connection lost mid-COPY can end the stream quietly: never take a truncated read for a whole one
      if (!dec.done) throw new AppError('transient', `sources: branch ${o.branch}: COPY ended before its end marker (connection lost)`);
      if (dec.buffered > 0) yield dec.flush();
    } catch (e) {
      broken = e as Error;
      throw e;
    } finally {
      client?.off('error', onError);
      // a failed or abandoned COPY may leave the session mid-stream: never reuse it
      client?.release(broken || (copy && !copy.finished) || o.snapshot !== undefined ? true : undefined);
      release();
    }
  }
}

/**
 * `fn` in a read-only transaction rolled back after it, with SET LOCAL settings (the pooled
 * session goes back to extraction unchanged): ISO output, which the canonical text relies on; a
 * HashAggregate over the few digest groups, not a sort; with `serial`, no parallel plan. In
 * snapshot mode the session's transaction is open already (inSnapshot).
 */
async function readOnly<T>(c: pg.PoolClient, inSnapshot: boolean, serial: boolean | undefined, fn: () => Promise<T>): Promise<T> {
  if (!inSnapshot) await c.query('BEGIN READ ONLY');
  try {
    await c.query(`SET LOCAL datestyle = 'ISO, YMD'; SET LOCAL enable_sort = off${serial ? '; SET LOCAL max_parallel_workers_per_gather = 0' : ''}`);
    return await fn();
  } finally { await c.query('ROLLBACK'); }
}

/** In snapshot mode a session holds an open transaction importing the snapshot; it is closed (never reused) after use. */
async function importSnapshot(c: pg.PoolClient, snapshot: string | undefined): Promise<void> {
  if (snapshot === undefined) return;
  await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  await c.query(`SET TRANSACTION SNAPSHOT '${snapshot}'`);
}

/** The columns a query returns (LIMIT 0), typed from their OIDs. */
async function describeQuery(c: pg.PoolClient, q: RenderedQuery): Promise<SourceColumn[]> {
  const r = await c.query({ text: `SELECT * FROM (${q.sql}) q LIMIT 0`, values: q.binds.map((b) => String(b.value)) });
  // arrays of types without a built-in OID (an enum's array, a domain's): their element from pg_type
  const unknown = [...new Set(r.fields.map((f) => f.dataTypeID).filter((oid) => !KNOWN_OIDS.has(oid) && !(oid in ARRAY_ELEMENT)))];
  const elementOf = new Map<number, number>();
  if (unknown.length) {
    const t = await c.query<{ oid: number; elem: number }>(`SELECT oid::int AS oid, typelem::int AS elem FROM pg_type WHERE oid = ANY($1::oid[]) AND typcategory = 'A' AND typelem <> 0`, [unknown]);
    for (const row of t.rows) elementOf.set(Number(row.oid), Number(row.elem));
  }
  return r.fields.map((f) => {
    const m = pgColumnType(f.dataTypeID, f.dataTypeModifier, elementOf.get(f.dataTypeID));
    return { name: canonicalColumn(f.name), sourceName: f.name, type: m.type, sourceType: m.sourceType, inferred: m.inferred, oid: f.dataTypeID } satisfies SourceColumn;
  });
}

/** Set a query's binds as session settings and return its SQL reading them back. */
async function setBinds(c: pg.PoolClient, q: RenderedQuery): Promise<string> {
  if (q.binds.length) {
    const sets = q.binds.map((_, i) => `set_config('tributary.b${i + 1}', $${i + 1}, false)`).join(', ');
    await c.query(`SELECT ${sets}`, q.binds.map((b) => String(b.value)));
  }
  // A bind is read back as `current_setting(…)::type`, spelled two ways:
  // - `(SELECT current_setting(…)::type)` is an InitPlan: read and cast once per query, not once per
  //   row of a seq scan — but opaque to the planner's estimates;
  // - a bare `current_setting(…)::type` is STABLE, which the planner folds to its value when
  //   estimating (so an index on the column is used) — but a seq scan evaluates it per row.
  // A watermark (INCREMENTAL) usually selects few rows, so its comparison is written both ways,
  // ANDed: the bare one lets an index on the CDC column serve it, and a seq scan (no such index)
  // tests the cheap InitPlan one first, evaluating the bare one only on the few rows that pass.
  // Other binds (the INITIAL lower bound) usually select most of the table: InitPlan only.
  const read = (n: string, t: string) => `current_setting('tributary.b${n}')::${t}`;
  const isWatermark = (n: string) => q.binds[Number(n) - 1]?.name.endsWith('_watermark');
  return q.sql
    .replace(/([A-Za-z_][\w$#]*\.(?:[A-Za-z_][\w$#]*|"(?:[^"]|"")+")) (>=|>) \$(\d+)::(timestamptz|timestamp|date|numeric|text)\b/g, (all, col, op, n, t) =>
      (isWatermark(n) ? `(${col} ${op} (SELECT ${read(n, t)}) AND ${col} ${op} ${read(n, t)})` : all))
    .replace(/\$(\d+)::(timestamptz|timestamp|date|numeric|text)\b/g, (_, n, t) => `(SELECT ${read(n, t)})`)
    .replace(/\$(\d+)::/g, (_, n) => `current_setting('tributary.b${n}')::`);
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The COPY select list: target columns present in the source (cast when the wire type differs) plus tracked-only columns. */
export function copyProjection(columns: SourceColumn[], target: ReadTarget): { projection: string; cols: CopyColumn[] } {
  const byName = new Map(columns.map((c) => [c.name, c]));
  const parts: string[] = [];
  const cols: CopyColumn[] = [];
  const tracked = new Set(target.track);
  target.fields.forEach((f, i) => {
    if (target.constants[f.name]) return;
    const name = f.source ?? f.name;
    const src = byName.get(name);
    if (!src) return;
    parts.push(projectAs(src, f.type));
    cols.push({ type: f.type, targetIndex: i, track: tracked.has(name) ? name : null });
    tracked.delete(name);
  });
  for (const name of tracked) {
    const src = byName.get(name);
    if (!src) continue;
    parts.push(projectAs(src, src.type));
    cols.push({ type: src.type, targetIndex: -1, track: name });
  }
  return { projection: parts.length ? parts.join(', ') : 'NULL::int4', cols: parts.length ? cols : [{ type: { kind: 'int' }, targetIndex: -1, track: null }] };
}

function projectAs(src: SourceColumn, t: SourceColumn['type']): string {
  const ref = `q.${quoteIdent(src.sourceName ?? src.name)}`;
  // inet's cast to text always appends the netmask (10.0.4.4/32); abbrev() is its output form (10.0.4.4),
  // what psql, pg_dump and every driver show
  if (t.kind === 'string' && src.oid === OID.inet) return `abbrev(${ref})`;
  // a numeric into a decimal goes as it is: a cast to numeric(p,s) would round extra fraction digits
  // quietly at the source; the decoder refuses such a value instead, naming the column (pg-copy-decoder.ts)
  if (t.kind === 'decimal' && src.oid === OID.numeric) return ref;
  const wire = pgWireType(t);
  const exact = sameType(src.type, t) && !src.inferred && (
    src.oid === wire.oid || (t.kind === 'string' && TEXT_OIDS.has(src.oid ?? -1)) || (t.kind === 'int' && src.oid === OID.int4)
  );
  return exact ? ref : `${ref}::${wire.cast}`;
}
