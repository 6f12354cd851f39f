import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { ParquetEncoderPool } from '../lake';
import { MemoryHold, StagingWriter, stagedBatches } from './staging';

const schema = new arrow.Schema([new arrow.Field('id', new arrow.Int32(), true), new arrow.Field('s', new arrow.Utf8(), true)]);
const batch = (from: number, n: number) => new arrow.RecordBatch(schema, arrow.makeData({
  type: new arrow.Struct(schema.fields), length: n,
  children: [arrow.vectorFromArray(Array.from({ length: n }, (_, i) => from + i), new arrow.Int32()).data[0], arrow.vectorFromArray(Array.from({ length: n }, (_, i) => `row ${from + i}`), new arrow.Utf8()).data[0]],
}));
const ids = async (f: Parameters<typeof stagedBatches>[0]) => (await stagedBatches(f)).flatMap((b) => [...b.getChild('id')!].map(Number));

describe('StagingWriter with a memory hold', () => {
  const encoder = new ParquetEncoderPool(1);
  let root = '';
  afterAll(async () => { await encoder.close(); if (root) await fs.rm(root, { recursive: true, force: true }); });

  it('holds small units in memory within the budget, stages the rest as Parquet, and gets the budget back on release', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'staging-'));
    const one = batch(0, 1000);
    const hold = new MemoryHold(one.data.byteLength * 1.5); // room for one such unit, not two

    const a = new StagingWriter(path.join(root, 'a'), encoder, { rowsPerFile: 5000, hold });
    await a.init(); await a.add(one);
    const fa = await a.finish();
    expect(fa).toHaveLength(1);
    expect(fa[0].batches).toBeDefined();
    expect(await fs.readdir(root)).not.toContain('a'); // nothing written, not even its folder
    expect(await ids(fa[0])).toEqual(Array.from({ length: 1000 }, (_, i) => i));

    // the budget is taken: the next small unit is written as Parquet
    const b = new StagingWriter(path.join(root, 'b'), encoder, { rowsPerFile: 5000, hold });
    await b.init(); await b.add(batch(1000, 1000));
    const fb = await b.finish();
    expect(fb[0].batches).toBeUndefined();
    expect((await fs.stat(fb[0].path)).size).toBe(fb[0].bytes);
    expect(await ids(fb[0])).toEqual(Array.from({ length: 1000 }, (_, i) => 1000 + i));

    // a unit that filled a file is never held, even with room (its rows are already partly on disk)
    a.release();
    expect(fa[0].batches).toBeUndefined();
    const c = new StagingWriter(path.join(root, 'c'), encoder, { rowsPerFile: 600, hold });
    await c.init(); await c.add(batch(0, 700)); await c.add(batch(700, 300));
    const fc = await c.finish();
    expect(fc.every((f) => !f.batches && f.path)).toBe(true);
    expect((await Promise.all(fc.map(ids))).flat()).toEqual(Array.from({ length: 1000 }, (_, i) => i));

    // released budget is usable again
    const d = new StagingWriter(path.join(root, 'd'), encoder, { rowsPerFile: 5000, hold });
    await d.init(); await d.add(batch(5, 1000));
    expect((await d.finish())[0].batches).toBeDefined();
  });
});

describe('StagingWriter without a hold (an INITIAL)', () => {
  const encoder = new ParquetEncoderPool(1);
  let root = '';
  afterAll(async () => { await encoder.close(); if (root) await fs.rm(root, { recursive: true, force: true }); });

  it('streams each file to the encoder batch by batch: files cut at rowsPerFile, every row back in order', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'staging-stream-'));
    const w = new StagingWriter(path.join(root, 'u'), encoder, { rowsPerFile: 60_000 });
    await w.init();
    // 25k-row batches: the first is more than an inline encode's worth, so the file is streamed from it
    for (let i = 0; i < 5; i++) await w.add(batch(i * 25_000, 25_000));
    await w.add(batch(125_000, 7));
    const files = await w.finish();
    expect(files.map((f) => f.rows)).toEqual([75_000, 50_007]);
    for (const f of files) expect((await fs.stat(f.path)).size).toBe(f.bytes);
    expect((await Promise.all(files.map(ids))).flat()).toEqual(Array.from({ length: 125_007 }, (_, i) => i));
    const strings = (await stagedBatches(files[1])).flatMap((b) => [...b.getChild('s')!]);
    expect(strings[0]).toBe('row 75000');
    expect(strings.at(-1)).toBe('row 125006');
  });

  it('a small unit is still encoded in one piece, and discard drops a file being streamed', async () => {
    const small = new StagingWriter(path.join(root, 'small'), encoder, { rowsPerFile: 60_000 });
    await small.init(); await small.add(batch(0, 500));
    const fs1 = await small.finish();
    expect(fs1.map((f) => f.rows)).toEqual([500]);
    expect(await ids(fs1[0])).toEqual(Array.from({ length: 500 }, (_, i) => i));

    const gone = new StagingWriter(path.join(root, 'gone'), encoder, { rowsPerFile: 60_000 });
    await gone.init(); await gone.add(batch(0, 30_000));
    await gone.discard();
    await expect(fs.stat(path.join(root, 'gone'))).rejects.toThrow();
  });
});
