import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../testing/pg';
import { registerSlices } from './register';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db.drop(); });

describe('registerSlices', () => {
  it('registers NEW slices in order and retires older registrations', async () => {
    const n = await registerSlices(db.pool, { runId: 5, slices: [
      { query: "SELECT * FROM s WHERE s.id >= 1 AND s.id < 10 AND s.t = 'x'", target: 'public.t', lo: '1', hi: '10', predicate: 's.id >= 1 AND s.id < 10' },
      { query: 'SELECT * FROM s WHERE s.id >= 10', target: 'public.t', lo: '10' },
    ] });
    expect(n).toBe(2);
    const r = await db.pool.query('select roworder, status, iscurrentrow, generation, slice_lo, slice_hi, slice_predicate from striim_orchestration where uniquerunid = 5 order by roworder');
    expect(r.rows).toEqual([
      { roworder: 1, status: 'NEW', iscurrentrow: true, generation: 1, slice_lo: '1', slice_hi: '10', slice_predicate: 's.id >= 1 AND s.id < 10' },
      { roworder: 2, status: 'NEW', iscurrentrow: true, generation: 1, slice_lo: '10', slice_hi: null, slice_predicate: null },
    ]);
    await registerSlices(db.pool, { runId: 5, slices: [{ query: 'SELECT 1', target: 'public.t' }] });
    const cur = await db.pool.query('select generation, iscurrentrow from striim_orchestration where uniquerunid = 5 order by id');
    expect(cur.rows.map((x) => [x.generation, x.iscurrentrow])).toEqual([[1, false], [1, false], [2, true]]);
    const run = await db.pool.query('select generation, fresh_marker from slice_runs where run_id = 5');
    expect(run.rows[0]).toEqual({ generation: 2, fresh_marker: true });
  });

  it('refuses a target containing the queryfile delimiter', async () => {
    await expect(registerSlices(db.pool, { runId: 6, slices: [{ query: 'SELECT 1', target: 'a|b' }] })).rejects.toThrow(/must not contain/);
  });
});
