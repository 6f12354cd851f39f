import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../db/pool';
import { openLake } from '../../lake';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../../testing/pg';
import { arrowSchemaOf, lakeCounter, lakeTargetFromSettings } from './lake-writer';
import type { LakeSliceWriter } from './native-executor';
import type { SliceRow } from './state';
import { fastSettings, makeSource, tmpDir } from './test-fixtures';

// Two lake writers that share nothing — as on two workers of a fanned-out run — merge disjoint
// slices into one unpartitioned table at once, in small batches: their commits race on the one
// partition, and the loser of each race merges again on the winner's snapshot instead of failing the slice.
const ROWS = 6_000;
let db: TestDatabase;
let src: { url: string; drop(): Promise<void> };
let dir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  src = await createScratchDatabase('lwsrc');
  dir = await tmpDir();
  await makeSource(src.url, 'public.src', ROWS);
});
afterAll(async () => { await db?.drop(); await src?.drop(); if (dir) await fs.rm(dir, { recursive: true, force: true }); });

async function copy(writer: LakeSliceWriter, pool: ReturnType<typeof createPool>, id: number, lo: number, hi: number, targettbl = 'slices.raced') {
  const c = await pool.connect();
  try {
    await c.query('begin');
    const slice = { id, roworder: id, targettbl } as SliceRow;
    const r = await writer({ slice, source: c, query: `select * from public.src where id >= ${lo} and id < ${hi}`, signal: new AbortController().signal, onBatch: () => {} });
    await c.query('commit');
    return r;
  } finally { c.release(); }
}

describe('lake slice writer', () => {
  it('two independent writers merging into one table at once: every row lands once', async () => {
    const warehouse = `file://${dir}/warehouse`;
    const s = fastSettings({ executor: 'native', runId: 1, targetLake: warehouse, mergeKeys: 'id', batchRows: 200 }, dir);
    // The table exists first, so both writers race on commits, not on creating it.
    const pool = createPool(src.url, { max: 4 });
    try {
      await copy(await lakeTargetFromSettings(db.pool, s, warehouse), pool, 1, 1, 2);
      const [a, b] = [await lakeTargetFromSettings(db.pool, s, warehouse), await lakeTargetFromSettings(db.pool, s, warehouse)];
      const half = ROWS / 2;
      const out = await Promise.all([copy(a, pool, 2, 2, half + 1), copy(b, pool, 3, half + 1, ROWS + 1)]);
      expect(out.map((o) => o.rowsWritten)).toEqual([half - 1, half]);
    } finally { await pool.end(); }
    expect(await lakeCounter(db.pool, warehouse)('slices.raced')).toBe(ROWS);
    const ids = new Set<string>();
    for await (const batch of (await openLake({ pool: db.pool, warehouse }).loadTable('slices.raced')).scan({ columns: ['id'] })) {
      for (let i = 0; i < batch.numRows; i++) ids.add(String(batch.getChildAt(0)!.get(i)));
    }
    expect(ids.size).toBe(ROWS);
  });

  it('an existing lake table with upper-case columns (an ETL load under naming: upper) is filled and merged by the query\'s lower-case names', async () => {
    const warehouse = `file://${dir}/warehouse`;
    const lake = openLake({ pool: db.pool, warehouse });
    const pool = createPool(src.url, { max: 2 });
    try {
      const probe = await pool.query('select * from public.src limit 0');
      const fields = probe.fields.map((f) => ({ name: f.name.toUpperCase(), dataTypeID: f.dataTypeID, dataTypeModifier: f.dataTypeModifier }));
      if (!(await lake.listNamespaces()).includes('slices')) await lake.createNamespace('slices');
      await lake.createTable('slices.legacy', { schema: arrowSchemaOf(fields, ['ID']), identifierColumns: ['ID'] });
      const s = fastSettings({ executor: 'native', runId: 2, targetLake: warehouse, mergeKeys: 'id', batchRows: 50 }, dir);
      const w = await lakeTargetFromSettings(db.pool, s, warehouse);
      await copy(w, pool, 1, 1, 101, 'slices.legacy');
      await copy(w, pool, 2, 51, 151, 'slices.legacy'); // overlaps: merged on ID, not doubled
    } finally { await pool.end(); }
    const t = await lake.loadTable('slices.legacy');
    expect(t.arrowSchema().fields.map((f) => f.name)).toEqual(['ID', 'GRP', 'AMOUNT', 'NOTE', 'CREATED_AT']);
    const want = await pool2rows(src.url);
    const got: string[] = [];
    for await (const b of t.scan({ columns: ['ID', 'NOTE'] })) for (const r of b.toArray()) got.push(`${r.ID}|${r.NOTE}`);
    expect(got.sort()).toEqual(want);
  });
});

async function pool2rows(url: string): Promise<string[]> {
  const pool = createPool(url, { max: 1 });
  try {
    const r = await pool.query(`select id::text || '|' || coalesce(note, 'null') as k from public.src where id >= 1 and id < 151`);
    return r.rows.map((x: { k: string }) => x.k).sort();
  } finally { await pool.end(); }
}
