import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../../testing/pg';
import { createPgExecutor, PostgresDialect, ctidRanges, type SourceExecutor } from '../../sources';
import { planSplit, type SplitPlan } from './split';
import { parseTemplate } from './template';
import { buildSourceTables } from './testing-source';

const ROWS = 1_000_000;
const PART_ROWS = 1_000_000;

let src: { url: string; drop(): Promise<void> };
let admin: pg.Client;
let exec: SourceExecutor;
let dialect: PostgresDialect;

beforeAll(async () => {
  src = await createScratchDatabase('src');
  await buildSourceTables(src.url, { rows: ROWS, partRows: PART_ROWS });
  admin = new pg.Client({ connectionString: src.url });
  await admin.connect();
  await admin.query('CREATE UNLOGGED TABLE seen (id bigint, slice int)');
  exec = await createPgExecutor(src.url);
  dialect = new PostgresDialect(exec);
});

afterAll(async () => {
  await exec?.close();
  await admin?.end();
  await src?.drop();
});

/** Run every slice into `seen`; return total rows, distinct keys and per-slice counts. */
async function runAll(plan: SplitPlan): Promise<{ total: number; distinct: number; perSlice: number[] }> {
  await admin.query('TRUNCATE seen');
  for (const s of plan.slices) await admin.query(`INSERT INTO seen SELECT q.id, ${s.index} FROM (${s.sql}) q`);
  const r = await admin.query('SELECT count(*)::int AS total, count(DISTINCT id)::int AS distinct FROM seen');
  const per = await admin.query('SELECT slice, count(*)::int AS n FROM seen GROUP BY slice ORDER BY slice');
  return { total: r.rows[0].total, distinct: r.rows[0].distinct, perSlice: per.rows.map((x) => x.n) };
}
const count = async (sql: string) => Number((await admin.query(sql)).rows[0].n);

describe('split on real Postgres: disjoint and complete', () => {
  const plain = 'SELECT s.id, s.created_at, s.amount FROM public.big s WHERE ~SPLIT~';

  it('physical (ctid) on a plain table', async () => {
    const plan = await planSplit({ dialect, template: parseTemplate(plain, { table: 'public.big' }), strategy: 'rowid', chunks: 16 });
    expect(plan.method).toBe('relpages');
    expect(plan.slices.length).toBe(16);
    expect(plan.slices[0].predicate).toMatch(/^s\.ctid < '\(\d+,0\)'::tid$/);
    expect(plan.slices[1].predicate).toMatch(/^s\.ctid >= '\(\d+,0\)'::tid AND s\.ctid < '\(\d+,0\)'::tid$/);
    expect(plan.slices[15].predicate).toMatch(/^s\.ctid >= '\(\d+,0\)'::tid$/);
    const r = await runAll(plan);
    expect(r.total).toBe(ROWS);
    expect(r.distinct).toBe(ROWS);
    expect(r.perSlice.every((n) => n > 0)).toBe(true);
  });

  it('column range (timestamp) on a plain table, with a join in the template', async () => {
    const join = 'SELECT s.id, s.amount, c.name FROM public.big s JOIN public.cust c ON c.id = s.cust_id WHERE c.id > 0 AND ~SPLIT~';
    const plan = await planSplit({ dialect, template: parseTemplate(join, { table: 'public.big' }), strategy: 'column', column: 'created_at', chunks: 8, sampleRows: 20_000 });
    expect(plan.slices.length).toBe(8);
    expect(plan.slices[0].predicate).toMatch(/^\(s\.created_at < '.+'::timestamp OR s\.created_at IS NULL\)$/);
    expect(plan.slices[3].predicate).toMatch(/^s\.created_at >= '.+'::timestamp AND s\.created_at < '.+'::timestamp$/);
    expect(plan.slices[7].sql).toContain('JOIN public.cust c ON c.id = s.cust_id WHERE c.id > 0 AND s.created_at >= ');
    const r = await runAll(plan);
    expect(r.total).toBe(ROWS);
    expect(r.distinct).toBe(ROWS);
    // equi-depth from a sample: roughly even slices
    expect(Math.min(...r.perSlice)).toBeGreaterThan(ROWS / 8 / 2);
  });

  it('physical (ctid) with a join in the template', async () => {
    const join = 'SELECT s.id, c.name FROM public.big s JOIN public.cust c ON c.id = s.cust_id WHERE ~SPLIT~';
    const plan = await planSplit({ dialect, template: parseTemplate(join, { table: 'public.big' }), strategy: 'rowid', chunks: 5 });
    const r = await runAll(plan);
    expect([r.total, r.distinct]).toEqual([ROWS, ROWS]);
  });

  it('partition strategy (and auto) on a range-partitioned table', async () => {
    const t = parseTemplate('SELECT e.id, e.kind FROM public.events e WHERE e.kind IS NOT NULL AND ~SPLIT~', { table: 'public.events' });
    const plan = await planSplit({ dialect, template: t, strategy: 'auto', chunks: 3 });
    expect(plan.strategy).toBe('partition');
    expect(plan.slices.map((s) => s.partition)).toEqual(['events_p1', 'events_p2', 'events_p3', 'events_p4', 'events_pdef']);
    expect(plan.slices[0].sql).toBe('SELECT e.id, e.kind FROM events_p1 e WHERE e.kind IS NOT NULL AND 1=1');
    const r = await runAll(plan);
    const n = await count('SELECT count(*) AS n FROM public.events');
    expect([r.total, r.distinct]).toEqual([n, n]);
    expect(r.perSlice.at(-1)).toBe(501); // the default partition
  });

  it('physical and column on the partitioned table are disjoint and complete too', async () => {
    const n = await count('SELECT count(*) AS n FROM public.events');
    const t = parseTemplate('SELECT e.id FROM public.events e', { table: 'public.events' });
    const phys = await planSplit({ dialect, template: t, strategy: 'rowid', chunks: 6 });
    expect(phys.slices[0].sql).toMatch(/^SELECT e\.id FROM public\.events e WHERE e\.ctid < /);
    const a = await runAll(phys);
    expect([a.total, a.distinct]).toEqual([n, n]);
    const col = await planSplit({ dialect, template: t, strategy: 'column', column: 'e.id', chunks: 7, sampleRows: 10_000 });
    const b = await runAll(col);
    expect([b.total, b.distinct]).toEqual([n, n]);
  });

  it('--subpartitions: one slice per leaf of a sub-partitioned table; inheritance parents read with ONLY', async () => {
    await admin.query(`CREATE TABLE public.sub (id bigint, kind text) PARTITION BY RANGE (id);
      CREATE TABLE public.sub_a PARTITION OF public.sub FOR VALUES FROM (0) TO (5000) PARTITION BY LIST (kind);
      CREATE TABLE public.sub_a_x PARTITION OF public.sub_a FOR VALUES IN ('x');
      CREATE TABLE public.sub_a_y PARTITION OF public.sub_a DEFAULT;
      CREATE TABLE public.sub_b PARTITION OF public.sub FOR VALUES FROM (5000) TO (MAXVALUE);
      INSERT INTO public.sub SELECT g, CASE WHEN g % 2 = 0 THEN 'x' ELSE 'y' END FROM generate_series(1, 9000) g;
      CREATE TABLE public.inh (id bigint); CREATE TABLE public.inh_c () INHERITS (public.inh);
      INSERT INTO public.inh SELECT generate_series(1, 100); INSERT INTO public.inh_c SELECT generate_series(101, 250);`);
    const t = parseTemplate('SELECT q.id FROM public.sub q WHERE ~SPLIT~', { table: 'public.sub' });
    const top = await planSplit({ dialect, template: t, strategy: 'partition' });
    expect(top.slices.map((x) => x.partition)).toEqual(['sub_a', 'sub_b']);
    const leaves = await planSplit({ dialect, template: t, strategy: 'partition', subpartitions: true });
    expect(leaves.method).toBe('subpartition');
    expect(leaves.slices.map((x) => x.partition)).toEqual(['sub_a_x', 'sub_a_y', 'sub_b']);
    const r = await runAll(leaves);
    expect([r.total, r.distinct]).toEqual([9000, 9000]);
    const inh = await planSplit({ dialect, template: parseTemplate('SELECT i.id FROM public.inh i', { table: 'public.inh' }), strategy: 'auto' });
    expect(inh.slices.map((x) => x.sql)).toEqual(['SELECT i.id FROM ONLY public.inh i WHERE 1=1', 'SELECT i.id FROM inh_c i WHERE 1=1']);
    const ri = await runAll(inh);
    expect([ri.total, ri.distinct]).toEqual([250, 250]);
  });

  it('open tails capture rows inserted after the split; --chunks 1 gives 1=1', async () => {
    const t = parseTemplate(plain, { table: 'public.big' });
    const phys = await planSplit({ dialect, template: t, strategy: 'rowid', chunks: 4 });
    const col = await planSplit({ dialect, template: t, strategy: 'column', column: 'created_at', chunks: 4, sampleRows: 5000 });
    // new blocks past the last boundary, values past the last bound, and NULLs
    await admin.query(`INSERT INTO public.big SELECT g, 1, timestamp '2099-01-01' + g * interval '1 second', 1, 'late' FROM generate_series(${ROWS + 1}, ${ROWS + 20000}) g`);
    await admin.query(`INSERT INTO public.big SELECT g, 1, NULL, 1, 'null date' FROM generate_series(${ROWS + 20001}, ${ROWS + 20100}) g`);
    const total = await count('SELECT count(*) AS n FROM public.big');
    expect(total).toBe(ROWS + 20100);
    for (const plan of [phys, col]) {
      const r = await runAll(plan);
      expect([plan.strategy, r.total, r.distinct]).toEqual([plan.strategy, total, total]);
    }
    for (const strategy of ['rowid', 'column'] as const) {
      const one = await planSplit({ dialect, template: t, strategy, column: 'created_at', chunks: 1 });
      expect(one.slices).toHaveLength(1);
      expect(one.slices[0].predicate).toBe('1=1');
      expect(one.slices[0].sql).toBe('SELECT s.id, s.created_at, s.amount FROM public.big s WHERE 1=1');
    }
    await admin.query(`DELETE FROM public.big WHERE id > ${ROWS}`);
  });

  it('every statement ran read-only under a statement_timeout', () => {
    expect(exec.log.length).toBeGreaterThan(0);
    expect(exec.log.every((e) => e.readOnly && e.timeoutMs > 0)).toBe(true);
    // nothing but TABLESAMPLE-bounded reads touched the tables' rows
    for (const e of exec.log.filter((x) => /public\.(big|events)\b/.test(x.sql))) expect(e.sql).toMatch(/TABLESAMPLE SYSTEM \([\d.e-]+\) .* LIMIT \d+/);
  });

  it('refuses writes through the executor and --as-of-scn on Postgres', async () => {
    await expect(exec.query('CREATE TABLE nope (x int)', [], { purpose: 'catalog' })).rejects.toThrow(/read-only transaction/);
    const t = parseTemplate(plain, { table: 'public.big' });
    await expect(planSplit({ dialect, template: t, strategy: 'rowid', asOfScn: '1' })).rejects.toThrow('✗ --as-of-scn is only supported for Oracle sources (this source is postgres)');
    await expect(planSplit({ dialect, template: t, strategy: 'partition' })).rejects.toThrow('✗ table public.big is not partitioned');
    await expect(planSplit({ dialect, template: t })).rejects.toThrow('✗ --chunks N is required for --strategy auto on public.big (not partitioned, so it splits by rowid)');
    await expect(planSplit({ dialect, template: t, strategy: 'column', column: 'note', chunks: 2 })).rejects.toThrow(/must be numeric, date or timestamp/);
    await expect(planSplit({ dialect, template: parseTemplate('select * from public.nope n', { table: 'public.nope' }), strategy: 'rowid' })).rejects.toThrow('✗ table public.nope not found on the source');
  });
});

describe('ctid range math', () => {
  it('covers every block once, fewer slices than blocks never', () => {
    expect(ctidRanges(0, 8)).toEqual([{ lo: '0', hi: '1' }]);
    expect(ctidRanges(3, 8).length).toBe(3);
    const r = ctidRanges(1000, 7);
    expect(r[0].lo).toBe('0');
    for (let i = 1; i < r.length; i++) expect(r[i].lo).toBe(r[i - 1].hi);
    expect(Number(r.at(-1)!.hi)).toBeGreaterThanOrEqual(1000);
  });
});
