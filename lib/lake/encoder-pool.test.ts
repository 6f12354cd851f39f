import { spawn } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { heldBytes, takeBuffer } from '../cache/array-buffers';
import { lakeEncoders, ParquetEncoderPool } from './encoder-pool';
import { readParquetBatches } from './parquet';

// The lake's shared encoder pool is never closed: its threads must hold a process up exactly while
// they have files. A process with nothing else to do awaits its file (it does not exit under the
// await: exit code 13, "unsettled top-level await") and then exits by itself (it does not hang).
// The child is encoder-pool-child.ts.

function run(): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'lib/lake/encoder-pool-child.ts'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', (d) => (out += d)); p.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.on('exit', (code) => { clearTimeout(timer); resolve({ code, out, err }); });
  });
}

describe('a streamed file\'s batches', () => {
  test('come back to the sending thread once encoded (lib/cache/array-buffers.ts), and the file holds their rows', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recycle-'));
    const pool = new ParquetEncoderPool(1);
    try {
      const n = 100_003; // 800,024 bytes of int64s: a size nothing else here gives back
      const schema = new arrow.Schema([new arrow.Field('id', new arrow.Int64(), false)]);
      const ids = BigInt64Array.from({ length: n }, (_, i) => BigInt(i * 3));
      const batch = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: n, nullCount: 0, children: [arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: ids })] }));
      const before = heldBytes();
      const file = path.join(dir, 'f.parquet');
      const s = pool.stream(file);
      s.add([batch]);
      expect(ids.length).toBe(0); // moved to the encoder thread
      await s.finish();
      expect(heldBytes()).toBe(before + n * 8);
      const back = takeBuffer(n * 8);
      expect(heldBytes()).toBe(before);
      expect(new Uint8Array(back).every((x) => x === 0)).toBe(true);
      const got: bigint[] = [];
      for await (const b of readParquetBatches(fs.readFileSync(file), file)) got.push(...(b.getChild('id')!.toArray() as BigInt64Array));
      expect(got).toHaveLength(n);
      expect(got.every((v, i) => v === BigInt(i * 3))).toBe(true);
    } finally {
      await pool.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('lakeEncoders', () => {
  test('a process awaiting its files neither exits under the await nor stays up after', async () => {
    const r = await run();
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out.trim().split('\n').map((l) => l.split(' ')[0])).toEqual(['bytes', 'bytes']);
  }, 90_000);

  test('encode leaves the caller\'s buffers alone, consumes its batch list and gives back the rows', async () => {
    const schema = new arrow.Schema([new arrow.Field('id', new arrow.Int64(), false), new arrow.Field('s', new arrow.Utf8(), true)]);
    const n = 70_000;
    const ids = BigInt64Array.from({ length: n }, (_, i) => BigInt(i * 3));
    const batch = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: n, nullCount: 0, children: [
      arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: ids }),
      arrow.vectorFromArray(Array.from({ length: n }, (_, i) => (i % 5 ? `s${i}` : null)), new arrow.Utf8()).data[0],
    ] }));
    const list = [batch, batch.slice(10, 20)];
    const bytes = await lakeEncoders().encode(schema, list, { compression: 'snappy', rowGroupRows: 32_768 }, 16_384);
    expect(list).toEqual([]);
    expect(ids.length).toBe(n); // not transferred away
    expect(ids[n - 1]).toBe(BigInt((n - 1) * 3));
    let rows = 0, sum = 0n, nulls = 0;
    for await (const b of readParquetBatches(bytes, 'encoded')) {
      rows += b.numRows;
      for (const v of b.getChild('id')!) sum += v as bigint;
      for (const v of b.getChild('s')!) if (v === null) nulls++;
    }
    const expectSum = ids.reduce((a, v) => a + v, 0n) + ids.slice(10, 20).reduce((a, v) => a + v, 0n);
    expect([rows, sum, nulls]).toEqual([n + 10, expectSum, n / 5 + 2]);
  });
});
