import { beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../db/pool';
import { openLake } from '../../lake';
import type { TestDatabase } from '../../testing/pg';
import { buildBoard } from './board';
import { lakeCounter, lakeTargetFromSettings } from './lake-writer';
import { createNativeExecutor } from './native-executor';
import { runSlices } from './orchestrator';
import { reconcileRun } from './reconcile';
import { openSource } from './source';
import { fastSettings, queryFile, sql } from './test-fixtures';
import { useSliceDatabases } from '../../testing/slice-databases';

const ROWS = 100_000;
let db: TestDatabase;
let src: { url: string; drop(): Promise<void> };
let tgt: { url: string; drop(): Promise<void> };
let dir: string;

const fx = useSliceDatabases({ rows: ROWS, targetSql: 'create table public.heap (id bigint, grp int, amount numeric(12,2), note text, created_at timestamptz)' });
beforeAll(() => { ({ db, src, tgt, dir } = fx); });

const settings = (flags: Parameters<typeof fastSettings>[0]) => fastSettings({ executor: 'native', sourceUrl: src.url, targetUrl: tgt.url, logDir: dir, batchRows: 7_000, ...flags }, dir);
const native = (s: ReturnType<typeof settings>, lake = false) => async (x: Parameters<typeof createNativeExecutor>[0]) =>
  createNativeExecutor({ ...x, lakeWriter: lake ? await lakeTargetFromSettings(db.pool, s, `file://${dir}/warehouse`) : null });
const fingerprint = `select count(*)::int n, count(distinct id)::int d, sum(amount)::text s, md5(string_agg(id || ':' || coalesce(note, '~') || ':' || created_at::text, ',' order by id)) h`;

describe('native executor', () => {
  it('copies 4 slices into a Postgres target by batched upsert from one snapshot; a re-run adds no rows', async () => {
    const s = settings({ runId: 1 });
    const r = await runSlices({ pool: db.pool, settings: s, queryFileText: queryFile('public.src', 'public.tgt', ROWS, 4), nativeExecutor: native(s) });
    expect(r).toMatchObject({ mode: 'fresh', verdict: 'FINISHED' });
    const [a] = await sql(src.url, `${fingerprint} from public.src`);
    const [b] = await sql(tgt.url, `${fingerprint} from public.tgt`);
    expect(b).toEqual(a);
    const rows = (await db.pool.query('select rows_read::int r, rows_written::int w, executor, namespace from striim_orchestration where uniquerunid = 1 order by roworder')).rows;
    expect(rows).toEqual(Array(4).fill({ r: 25_000, w: 25_000, executor: 'native', namespace: null }));
    const logs = (await db.pool.query("select message from slice_run_events where run_id = 1 and message like 'native: all slices read exported snapshot%'")).rows;
    expect(logs.length).toBe(1);
    const board = await buildBoard(db.pool, 1);
    expect(board).toMatchObject({ executor: 'native', total: 4, percentComplete: 100, counts: { COMPLETED: 4 } });

    // a slice re-run (force fresh) upserts over its rows: no duplicates, same data
    const again = await runSlices({ pool: db.pool, settings: settings({ runId: 1, forceFresh: true }), queryFileText: queryFile('public.src', 'public.tgt', ROWS, 4), nativeExecutor: native(s) });
    expect(again.verdict).toBe('FINISHED');
    expect((await sql(tgt.url, `${fingerprint} from public.tgt`))[0]).toEqual(a);

    const source = await openSource({ sourceEngine: 'postgres', sourceUrl: src.url, oracle: null });
    const tpool = createPool(tgt.url, { max: 2 });
    try {
      const rec = await reconcileRun(db.pool, 1, { source, target: { kind: 'postgres', pool: tpool } });
      expect(rec.slices.map((x) => x.delta)).toEqual([0, 0, 0, 0]);
      expect(rec.total).toEqual({ source: ROWS, target: ROWS, delta: 0 });
    } finally { await source?.close(); await tpool.end(); }
  });

  it('refuses a target without a primary key', async () => {
    const s = settings({ runId: 2 });
    await expect(runSlices({ pool: db.pool, settings: s, queryFileText: queryFile('public.src', 'public.heap', 1000, 2), nativeExecutor: native(s) }))
      .rejects.toThrow(/target public.heap has no primary key — refusing: a re-run would duplicate rows/);
  });

  it('merges slices into a lake table on the declared key', async () => {
    const s = settings({ runId: 3, targetLake: `file://${dir}/warehouse`, mergeKeys: 'id', batchRows: 5_000 });
    const q = queryFile('public.src', 'slices.lake_tgt', 20_000, 2);
    const r = await runSlices({ pool: db.pool, settings: s, queryFileText: q, nativeExecutor: native(s, true) });
    expect(r.verdict).toBe('FINISHED');
    const t = await openLake({ pool: db.pool, warehouse: `file://${dir}/warehouse` }).loadTable('slices.lake_tgt');
    const ids = new Set<bigint>();
    let n = 0;
    let amountSum = 0;
    for await (const b of t.scan()) {
      n += b.numRows;
      const idc = b.getChild('id')!;
      const am = b.getChild('amount')!;
      for (let i = 0; i < b.numRows; i++) { ids.add(BigInt(idc.get(i))); const a = am.get(i); if (a !== null) amountSum += Number(String(a)) / 100; }
    }
    expect(n).toBe(20_000);
    expect(ids.size).toBe(20_000);
    // the query's Postgres types become the lake's: numeric(12,2) → decimal(12,2), timestamptz stays zoned
    const types = Object.fromEntries(t.arrowSchema().fields.map((f) => [f.name, String(f.type)]));
    expect(types).toMatchObject({ id: 'Int64', grp: 'Int32', note: 'Utf8', created_at: 'Timestamp<MICROSECOND, UTC>' });
    const amountType = t.arrowSchema().fields.find((f) => f.name === 'amount')!.type as { precision: number; scale: number };
    expect([amountType.precision, amountType.scale]).toEqual([12, 2]);
    const [ref] = await sql(src.url, 'select sum(amount)::float8 s from public.src where id <= 20000');
    expect(amountSum).toBeCloseTo(ref.s, 2);
    // a re-run merges over the same keys: still 20,000 rows
    const again = await runSlices({ pool: db.pool, settings: { ...s, forceFresh: true }, queryFileText: q, nativeExecutor: native(s, true) });
    expect(again.verdict).toBe('FINISHED');
    const count = lakeCounter(db.pool, `file://${dir}/warehouse`);
    expect(await count('slices.lake_tgt')).toBe(20_000);
    const source = await openSource({ sourceEngine: 'postgres', sourceUrl: src.url, oracle: null });
    try {
      const rec = await reconcileRun(db.pool, 3, { source, target: { kind: 'lake', count } });
      expect(rec.total).toEqual({ source: 20_000, target: 20_000, delta: 0 });
    } finally { await source?.close(); }
  });
});
