import type pg from 'pg';
import { copyIn, copyOut, createPgPool, type CopyInQuery } from '../../sources';
import { deferred, formatDuration, type RunningSlice, type SliceExecutor, type SliceOutcome } from './executor';
import type { RunLog } from './run-log';
import type { RunSettings } from './settings';
import { getRun, markProgress, type SliceRow } from './state';
import type { Watermark } from '../../sources';
import { AppError } from '../../errors';

/** Quote a possibly schema-qualified name for SQL: `public.t` → `"public"."t"`. */
export function quoteIdent(name: string): string {
  return name.split('.').map((p) => `"${p.replace(/"/g, '""')}"`).join('.');
}

/** Primary-key columns of a Postgres table, in key order; [] when it has none. */
export async function primaryKey(q: pg.Pool | pg.PoolClient, table: string): Promise<string[]> {
  const r = await q.query<{ attname: string }>(
    `select a.attname from pg_index i
       join lateral unnest(i.indkey) with ordinality k(attnum, ord) on true
       join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
      where i.indrelid = to_regclass($1) and i.indisprimary order by k.ord`, [table]);
  return r.rows.map((x) => x.attname);
}

/** `INSERT … SELECT … ON CONFLICT (pk) DO UPDATE` from a staging table into the target. */
export function upsertSql(target: string, staging: string, cols: string[], pk: string[]): string {
  const c = cols.map((x) => `"${x.replace(/"/g, '""')}"`);
  const pkq = pk.map((x) => `"${x.replace(/"/g, '""')}"`);
  const rest = c.filter((x) => !pkq.includes(x));
  const action = rest.length ? `do update set ${rest.map((x) => `${x} = excluded.${x}`).join(', ')}` : 'do nothing';
  return `insert into ${quoteIdent(target)} (${c.join(', ')}) select ${c.join(', ')} from ${staging} on conflict (${pkq.join(', ')}) ${action}`;
}

/** Lake writer hook: merge a slice's rows (read by the executor) into a lake table. */
export type LakeSliceWriter = (p: { slice: SliceRow; source: pg.PoolClient; query: string; signal: AbortSignal; onBatch(rowsRead: number, rowsWritten: number): void }) => Promise<{ rowsRead: number; rowsWritten: number }>;

export interface NativeExecutorOptions {
  pool: pg.Pool;
  settings: RunSettings;
  log: RunLog;
  signal?: AbortSignal;
  watermark: Watermark | null;
  /** Write slices into the lake instead of a Postgres target (see lake-writer.ts). */
  lakeWriter?: LakeSliceWriter | null;
  /** With nativeSnapshot: read this snapshot, exported by the run's coordinator, instead of exporting one (a fanned-out slice). (Default: export one) */
  snapshotId?: string | null;
}

/** What a Postgres-to-Postgres slice copy works with (one executor's pools and maps). */
interface PgCopyContext {
  /** The control database (slice progress). */
  pool: pg.Pool;
  target: pg.Pool;
  /** Primary key of each target table. */
  pks: Map<string, string[]>;
  /** Rows/s per running slice, for the board. */
  rates: Map<number, number>;
  batchRows: number;
  openSource(signal: AbortSignal): Promise<pg.PoolClient>;
}

/** Copy one slice with text COPY into a temp table, upserting each batch of `batchRows` on the target's primary key. */
async function copyToPostgres(x: PgCopyContext, slice: SliceRow, signal: AbortSignal): Promise<SliceOutcome> {
  const t0 = Date.now();
  const pk = x.pks.get(slice.targettbl)!;
  const src = await x.openSource(signal);
  let tgt: pg.PoolClient | null = null;
  let err: Error | undefined;
  let rowsRead = 0;
  let rowsWritten = 0;
  try {
    const cols = (await src.query(`select * from (${slice.query}) q limit 0`)).fields.map((f) => f.name);
    tgt = await x.target.connect();
    const stg = `stg_slice_${slice.id}`;
    await tgt.query(`drop table if exists pg_temp.${stg}`);
    await tgt.query(`create temp table ${stg} (like ${quoteIdent(slice.targettbl)}) on commit delete rows`);
    const colList = cols.map((c) => `"${c.replace(/"/g, '""')}"`).join(', ');
    const upsert = upsertSql(slice.targettbl, stg, cols, pk);
    let sink: CopyInQuery | null = null;
    let inBatch = 0;
    const t = tgt;
    const flush = async () => {
      if (!sink) return;
      await sink.end();
      sink = null;
      const r = await t.query(upsert);
      await t.query('commit');
      rowsRead += inBatch;
      rowsWritten += r.rowCount ?? 0;
      inBatch = 0;
      x.rates.set(slice.id, Math.round(rowsWritten / Math.max(0.001, (Date.now() - t0) / 1000)));
      await markProgress(x.pool, slice.id, rowsRead, rowsWritten);
    };
    const write = async (buf: Buffer) => {
      if (!buf.length) return;
      if (!sink) {
        await t.query('begin');
        sink = copyIn(t, `copy ${stg} (${colList}) from stdin`);
      }
      await sink.write(buf);
    };
    // Text COPY escapes newlines inside values, so every '\n' ends a row.
    for await (const chunk of copyOut(src, `copy (${slice.query}) to stdout`, { signal })) {
      let start = 0;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
        if (++inBatch >= x.batchRows) {
          await write(chunk.subarray(start, i + 1));
          await flush();
          start = i + 1;
        }
      }
      await write(chunk.subarray(start));
    }
    await flush();
    await src.query('commit');
    return { status: 'COMPLETED', notes: `Total Execution time: ${formatDuration(Date.now() - t0)}; ${rowsRead} rows read, ${rowsWritten} upserted`, rowsRead, rowsWritten };
  } catch (e) {
    err = e as Error;
    await tgt?.query('rollback').catch(() => undefined); // the client is discarded below (release(err)) either way
    return { status: 'FAILED', notes: `[native] ${signal.aborted ? 'stopped' : err.message}`, rowsRead, rowsWritten };
  } finally {
    // A client whose COPY was cut is not reusable: discard it.
    src.release(err);
    tgt?.release(err);
  }
}

/**
 * Tributary's own slice copier, for users without Striim. Reads each slice
 * from a Postgres source with COPY (bounded memory: bytes stream through, split
 * on row boundaries into batches) and upserts each batch into the Postgres
 * target on its primary key (a target without one is refused: a re-run would
 * duplicate rows), or merges into a lake table. With `nativeSnapshot` every
 * slice reads the same exported snapshot, so all slices are consistent.
 */
export async function createNativeExecutor(o: NativeExecutorOptions): Promise<SliceExecutor> {
  const s = o.settings;
  if (s.sourceEngine !== 'postgres' || !s.sourceUrl) throw new AppError('usage', 'slices: the native executor reads Postgres sources: give --source-url postgres://…');
  if (!o.lakeWriter && !s.targetUrl) throw new AppError('usage', 'slices: the native executor needs --target-url postgres://… or --target-lake');
  const run = await getRun(o.pool, s.runId);
  const targets = (await o.pool.query<{ t: string }>('select distinct targettbl as t from striim_orchestration where uniquerunid = $1 and generation = $2', [s.runId, run?.generation ?? 0])).rows.map((x) => x.t);

  const srcPool = createPgPool({ connectionString: s.sourceUrl, max: s.concurrency + 1, application_name: 'tributary-slices-native' });
  const tgtPool = s.targetUrl && !o.lakeWriter ? createPgPool({ connectionString: s.targetUrl, max: s.concurrency, application_name: 'tributary-slices-native' }) : null;
  const pks = new Map<string, string[]>();
  let snapshotHolder: pg.PoolClient | null = null;
  let snapshotId: string | null = null;
  const closeAll = async () => {
    // Shutting down after the slices' outcomes are recorded: a failed close or commit of the read-only snapshot changes nothing.
    if (snapshotHolder) { await snapshotHolder.query('commit').catch(() => undefined); snapshotHolder.release(); snapshotHolder = null; }
    await srcPool.end().catch(() => undefined);
    await tgtPool?.end().catch(() => undefined);
  };
  try {
    if (tgtPool) {
      for (const t of targets) {
        const reg = await tgtPool.query<{ r: string | null }>('select to_regclass($1)::text as r', [t]);
        if (!reg.rows[0].r) throw new AppError('validation', `slices: target table ${t} does not exist on the target database`);
        const pk = await primaryKey(tgtPool, t);
        if (!pk.length) throw new AppError('validation', `slices: target ${t} has no primary key — refusing: a re-run would duplicate rows (add a primary key)`);
        pks.set(t, pk);
      }
    }
    if (s.nativeSnapshot && o.snapshotId) {
      snapshotId = o.snapshotId;
    } else if (s.nativeSnapshot) {
      snapshotHolder = await srcPool.connect();
      await snapshotHolder.query('begin isolation level repeatable read read only');
      snapshotId = (await snapshotHolder.query<{ s: string }>('select pg_export_snapshot() as s')).rows[0].s;
      o.log.info(`native: all slices read exported snapshot ${snapshotId}${o.watermark ? ` (watermark ${o.watermark.value})` : ''}`);
    }
  } catch (e) {
    await closeAll();
    throw e;
  }

  const rates = new Map<number, number>();
  const running = new Map<number, AbortController>();

  async function openSource(signal: AbortSignal): Promise<pg.PoolClient> {
    const c = await srcPool.connect();
    if (signal.aborted) { c.release(); throw new Error('aborted'); }
    await c.query('begin isolation level repeatable read read only');
    if (snapshotId) await c.query(`set transaction snapshot '${snapshotId}'`);
    return c;
  }

  async function copyToLake(slice: SliceRow, signal: AbortSignal): Promise<SliceOutcome> {
    const t0 = Date.now();
    const src = await openSource(signal);
    let err: Error | undefined;
    try {
      const r = await o.lakeWriter!({
        slice, source: src, query: slice.query, signal,
        onBatch: (rr, rw) => {
          rates.set(slice.id, Math.round(rw / Math.max(0.001, (Date.now() - t0) / 1000)));
          void markProgress(o.pool, slice.id, rr, rw).catch((e) => o.log.warn(`native: progress of slice ${slice.roworder} not stored: ${(e as Error).message}`));
        },
      });
      await src.query('commit');
      return { status: 'COMPLETED', notes: `Total Execution time: ${formatDuration(Date.now() - t0)}; ${r.rowsRead} rows read, ${r.rowsWritten} merged into the lake`, ...r };
    } catch (e) {
      err = e as Error;
      return { status: 'FAILED', notes: `[native] ${signal.aborted ? 'stopped' : err.message}` };
    } finally { src.release(err); }
  }

  const start = (slice: SliceRow): RunningSlice => {
    const ac = new AbortController();
    running.set(slice.id, ac);
    const d = deferred<SliceOutcome>();
    let cancelReason: string | null = null;
    const work = o.lakeWriter ? copyToLake(slice, ac.signal)
      : copyToPostgres({ pool: o.pool, target: tgtPool!, pks, rates, batchRows: s.nativeBatchRows, openSource }, slice, ac.signal);
    void work.catch((e): SliceOutcome => ({ status: 'FAILED', notes: `[native] ${(e as Error).message}` })).then((out) => {
      running.delete(slice.id);
      rates.delete(slice.id);
      d.resolve(cancelReason ? { status: 'FAILED', notes: cancelReason, rowsRead: out.rowsRead, rowsWritten: out.rowsWritten } : out);
    });
    return {
      namespace: null, appname: null, done: d.promise,
      cancel: async (reason) => { cancelReason = reason; ac.abort(); await d.promise; },
    };
  };

  return {
    kind: 'native',
    snapshotId,
    placement: () => ({ namespace: null, appname: null }),
    launch: async (slice) => {
      o.log.info(`slice ${slice.roworder} started (native)`, { slice: slice.roworder, kind: 'appeared' });
      return start(slice);
    },
    // Nothing survives its process: a RUNNING slice of a dead orchestrator is re-run (upserts make it idempotent).
    adopt: async () => null,
    liveRates: () => new Map(rates),
    close: async () => {
      for (const ac of running.values()) ac.abort();
      await closeAll();
    },
  };
}
