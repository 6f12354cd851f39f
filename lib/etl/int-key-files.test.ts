import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { DataFileInfo } from '../lake';
import { IntKeyFileCache, liveIntKeys, type IntKeyFiles, type LiveIntKeys } from './int-key-files';
import { lakeIntKeys } from './detect-int-keys';

// The lake side of `deletes: detect` by file (int-key-files.ts), on hand-built files: which rows a
// position delete removes, what makes the road give up (null: the caller scans), and that a cached
// file is never read twice. The road against real lake files: etl-deletes-buckets.test.ts.
const file = (path: string, content: DataFileInfo['content'], recordCount: number): DataFileInfo => ({ path, content, partition: { BRANCH_ID: 'b0' }, recordCount, fileSizeInBytes: 1 });
const int64 = (xs: (number | null)[]) => arrow.vectorFromArray(xs.map((x) => (x === null ? null : BigInt(x))), new arrow.Int64()).data[0];
const int32 = (xs: number[]) => arrow.vectorFromArray(xs, new arrow.Int32()).data[0];
const positions = (rows: [string, number][]) => arrow.tableFromArrays({ file_path: rows.map((r) => r[0]), pos: BigInt64Array.from(rows.map((r) => BigInt(r[1]))) }).batches;

function lakeOf(files: DataFileInfo[], keys: Record<string, arrow.Data[]>, dels: Record<string, arrow.RecordBatch[]>) {
  const reads: string[] = [];
  const src: IntKeyFiles = {
    files,
    async *readKeys(p) { reads.push(p); yield* keys[p] ?? []; },
    async *readPositions(p) { reads.push(p); yield* dels[p]; },
  };
  return { src, reads };
}

/** The live keys sorted. */
const sorted = (a: LiveIntKeys | null) => {
  if (!a) return a;
  return [...a.keys].sort((x, y) => x - y);
};

describe('live integer keys by file', () => {
  it('position deletes remove their rows only from the file they name; null keys skipped; a second read comes from the cache', async () => {
    const { src, reads } = lakeOf(
      [file('d1', 'data', 5), file('d2', 'data', 3), file('p1', 'position-deletes', 3), file('p2', 'position-deletes', 1)],
      // d1 in two chunks, int64 with a null and a key near 2^53; d2 an int32 file (a column widened since)
      { d1: [int64([10, 11, null]), int64([13, 2 ** 53 - 1])], d2: [int32([11, 20, 21])] },
      { p1: positions([['d1', 1], ['d1', 4], ['d2', 2]]), p2: positions([['elsewhere', 0]]) },
    );
    const cache = new IntKeyFileCache();
    expect(sorted(await liveIntKeys(src, 'ID', cache))).toEqual([10, 11, 13, 20]);
    expect(reads.sort()).toEqual(['d1', 'd2', 'p1', 'p2']);
    reads.length = 0;
    expect(sorted(await liveIntKeys(src, 'ID', cache))).toEqual([10, 11, 13, 20]);
    expect(reads).toEqual([]);
    // the same file under another column is another entry
    expect(sorted(await liveIntKeys(src, 'OTHER', cache))).toEqual([10, 11, 13, 20]);
    expect(reads.sort()).toEqual(['d1', 'd2']);
  });

  it('delete rows read by their bytes: paths of equal length differing in one byte, a path met again later, a dictionary-encoded path column', async () => {
    const keys = { 'f/a1': [int64([1, 2, 3])], 'f/a2': [int64([4, 5, 6])], 'f/b1': [int64([7, 8])] };
    const files = [file('f/a1', 'data', 3), file('f/a2', 'data', 3), file('f/b1', 'data', 2), file('p1', 'position-deletes', 4), file('p2', 'position-deletes', 2)];
    const dict = arrow.vectorFromArray(['f/b1', 'f/a1'], new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()));
    const p2 = new arrow.Table({ file_path: dict, pos: arrow.vectorFromArray([1n, 2n], new arrow.Int64()) }).batches;
    const { src } = lakeOf(files, keys, { p1: positions([['f/a1', 0], ['f/a2', 2], ['f/a2', 0], ['f/a1', 2]]), p2 });
    expect(sorted(await liveIntKeys(src, 'ID', new IntKeyFileCache()))).toEqual([2, 5, 7]);
  });

  it('after a merge commit only the files it wrote are read: its data file and its delete file (naming rows of an older, cached file)', async () => {
    // what an INCREMENTAL with `deletes: detect` meets each run: the INITIAL file unchanged, one new
    // data file (the updated rows) and one new position-delete file (the replaced and deleted rows)
    const keys = { d1: [int64([1, 2, 3, 4, 5])], d2: [int64([2, 6])] };
    const dels = { p1: positions([['d1', 1]]), p2: positions([['d1', 3], ['d2', 1]]) };
    const cache = new IntKeyFileCache();
    const first = lakeOf([file('d1', 'data', 5), file('d2', 'data', 2), file('p1', 'position-deletes', 1)], keys, dels);
    expect(sorted(await liveIntKeys(first.src, 'ID', cache))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(first.reads.sort()).toEqual(['d1', 'd2', 'p1']);
    const next = lakeOf([file('d1', 'data', 5), file('d2', 'data', 2), file('p1', 'position-deletes', 1), file('p2', 'position-deletes', 2), file('d3', 'data', 1)], { ...keys, d3: [int64([7])] }, dels);
    expect(sorted(await liveIntKeys(next.src, 'ID', cache))).toEqual([1, 2, 3, 5, 7]);
    expect(next.reads.sort()).toEqual(['d3', 'p2']);
  });

  it('a chunk that is a slice of a larger column (values pre-sliced, the validity bitmap at its offset) reads its own rows', async () => {
    const whole = int64([9, 10, 11, null, 13, 14]);
    const { src } = lakeOf([file('d1', 'data', 4)], { d1: [whole.slice(1, 4)] }, {});
    expect(sorted(await liveIntKeys(src, 'ID', new IntKeyFileCache()))).toEqual([10, 11, 13]);
    const batch = new arrow.Table({ ID: arrow.makeVector(whole) }).batches[0].slice(2, 6); // rows 2–5
    expect([...(await lakeIntKeys((async function* () { yield batch; })(), 'ID', null))!]).toEqual([11, 13, 14]);
  });

  it('gives up (null) on equality deletes, a file without the column, a key beyond ±2^53', async () => {
    const cache = new IntKeyFileCache();
    expect(await liveIntKeys(lakeOf([file('d1', 'data', 1), file('e1', 'equality-deletes', 1)], { d1: [int64([1])] }, {}).src, 'ID', cache)).toBeNull();
    expect(await liveIntKeys(lakeOf([file('d1', 'data', 2)], {}, {}).src, 'ID', cache)).toBeNull();
    expect(await liveIntKeys(lakeOf([file('d1', 'data', 2)], { d1: [int64([1])] }, {}).src, 'ID', cache)).toBeNull(); // shorter than its record count
    expect(await liveIntKeys(lakeOf([file('d1', 'data', 2)], { d1: [int64([1, 2 ** 53])] }, {}).src, 'ID', cache)).toBeNull();
    expect(cache.size).toBe(0);
  });

  it('the cache drops the least recently used past its budget', () => {
    const cache = new IntKeyFileCache(2000);
    const positionsOf = (n: number) => new Map([['data.parquet', new Float64Array(n)]]); // 8 a position + 100 a file
    cache.set('a', positionsOf(100));
    cache.set('b', positionsOf(100));
    cache.get('a');
    cache.set('c', positionsOf(100));
    expect([cache.get('a'), cache.get('b'), cache.get('c')].map((x) => !!x)).toEqual([true, false, true]);
    expect(cache.size).toBe(1800);
    cache.set('huge', positionsOf(1000)); // beyond the budget: not kept
    expect(cache.get('huge')).toBeUndefined();
  });
});
