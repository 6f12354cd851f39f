import * as arrow from 'apache-arrow';
import { describe, expect, test } from 'vitest';
import { addPositions } from './position-deletes';
import { encodeParquet, readParquetBatches } from './parquet';

/** The rows one by one, as arrow-js reads them: what addPositions must agree with. */
function naive(b: arrow.RecordBatch, into: Map<string, number[]>): void {
  for (let i = 0; i < b.numRows; i++) {
    const p = b.getChild('file_path')!.get(i) as string;
    let l = into.get(p);
    if (!l) into.set(p, (l = []));
    l.push(Number(b.getChild('pos')!.get(i)));
  }
}

const batchOf = (paths: (string | null)[], pos: bigint[], large = false) => new arrow.RecordBatch({
  file_path: arrow.vectorFromArray(paths, large ? new arrow.LargeUtf8() : new arrow.Utf8()).data[0],
  pos: arrow.vectorFromArray(pos, new arrow.Int64()).data[0],
});

const gather = (batches: arrow.RecordBatch[], f: typeof addPositions) => {
  const m = new Map<string, number[]>();
  for (const b of batches) f(b, m);
  return [...m].sort(([a], [b]) => (a < b ? -1 : 1));
};

describe('addPositions', () => {
  // paths sorted as the spec writes them, runs of several lengths, names that differ only in one
  // byte at the start or the end, multi-byte UTF-8, and positions beyond 2^32
  const paths: string[] = [];
  const pos: bigint[] = [];
  const names = ['s3://b/t/data/00000-a.parquet', 's3://b/t/data/00000-b.parquet', 's3://b/t/data/10000-b.parquet', 's3://b/t/data/é-日本.parquet', 'x'];
  names.forEach((n, k) => { for (let i = 0; i < 1 + k * 3; i++) { paths.push(n); pos.push(BigInt(i * 7919 + k) + (k === 2 ? 2n ** 40n : 0n)); } });

  test('equals the row-by-row reading, whole and sliced', () => {
    const b = batchOf(paths, pos);
    expect(gather([b], addPositions)).toEqual(gather([b], naive));
    expect(gather([b], addPositions).find(([p]) => p === names[2])![1][0]).toBe(2 ** 40 + 2);
    for (const [from, to] of [[1, 9], [4, paths.length], [0, 1]]) {
      const s = b.slice(from, to);
      expect(gather([s], addPositions)).toEqual(gather([s], naive));
    }
  });

  test('a path run across batches lands in one list, in order', () => {
    const a = batchOf(paths.slice(0, 10), pos.slice(0, 10)), c = batchOf(paths.slice(10), pos.slice(10));
    expect(gather([a, c], addPositions)).toEqual(gather([batchOf(paths, pos)], naive));
  });

  test('null paths and large-offset strings take the row-by-row road', () => {
    const withNull = batchOf(['a', null, 'a'], [1n, 2n, 3n]);
    expect(gather([withNull], addPositions)).toEqual(gather([withNull], naive));
    const large = batchOf(paths, pos, true);
    expect(gather([large], addPositions)).toEqual(gather([large], naive));
  });

  test('reads a written Parquet delete file', async () => {
    const b = batchOf(paths, pos);
    const bytes = await encodeParquet(b.schema, [b]);
    const batches: arrow.RecordBatch[] = [];
    for await (const x of readParquetBatches(bytes, 'deletes.parquet')) batches.push(x);
    expect(gather(batches, addPositions)).toEqual(gather([b], naive));
  });

  test('a batch without the columns is refused', () => {
    const b = new arrow.RecordBatch({ x: arrow.vectorFromArray([1], new arrow.Int32()).data[0] });
    expect(() => addPositions(b, new Map())).toThrow(/file_path or pos/);
  });
});
