import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { duplicatesOf, exactDuplicates, KeyTracker, olderRows, withoutRows } from './key-check';

const batch = (cols: Record<string, arrow.Vector>) => new arrow.Table(cols).batches[0];
const ids = (xs: (number | null)[]) => arrow.vectorFromArray(xs.map((x) => (x === null ? null : BigInt(x))), new arrow.Int64());
const ts = (xs: bigint[]) => arrow.makeVector(arrow.makeData({ type: new arrow.TimestampMicrosecond(), length: xs.length, nullCount: 0, data: BigInt64Array.from(xs) }));
const str = (xs: (string | null)[]) => arrow.vectorFromArray(xs, new arrow.Utf8());
const big = (xs: bigint[]) => arrow.vectorFromArray(xs, new arrow.Int64());
const int32 = (xs: number[]) => arrow.vectorFromArray(xs, new arrow.Int32());

async function dups(batches: arrow.RecordBatch[][], keys: string[], order?: string) {
  const t = KeyTracker.forSchema(batches[0][0].schema, keys, 't on branch b');
  for (const f of batches) for (const b of f) t.add(b);
  const orderIdx = order ? batches[0][0].schema.fields.findIndex((f) => f.name === order) : null;
  return { t, d: await exactDuplicates(batches.length, async (i) => batches[i], t, orderIdx) };
}

describe('KeyTracker + exactDuplicates', () => {
  it('finds repeated keys across batches and files, exactly, with their values', async () => {
    const f0 = [batch({ ID: ids([1, 2, 3]), NAME: str(['a', 'b', 'c']) }), batch({ ID: ids([4, 2]), NAME: str(['d', 'e']) })];
    const f1 = [batch({ ID: ids([5, 2, 4]), NAME: str(['f', 'g', 'h']) })];
    const { d } = await dups([f0, f1], ['id']);
    expect(d.map((g) => [g.key, g.rows.map((r) => `${r.file}:${r.row}`)])).toEqual([['2', ['0:1', '0:4', '1:1']], ['4', ['0:3', '1:2']]]);
  });

  it('a composite key with a microsecond timestamp: rows differing by 1 µs are distinct; NULL keys repeat', async () => {
    const b = batch({ PAYMENT_ID: ids([7, 7, 7, null, null]), PAYMENT_DATE: ts([1_000_000n, 1_000_001n, 1_000_000n, 5n, 5n]), V: str(['x', 'y', 'z', null, 'w']) });
    const { d } = await dups([[b]], ['PAYMENT_ID', 'payment_date']);
    expect(d.map((g) => [g.key, g.rows.length])).toEqual([['7, 1000000', 2], ['NULL, 5', 2]]);
  });

  it('string keys: no false duplicates over 200k distinct keys, one real one found', async () => {
    const n = 200_000;
    const keys = Array.from({ length: n }, (_, i) => `k-${i}`);
    keys.push('k-123456');
    const { t, d } = await dups([[batch({ K: str(keys) })]], ['K']);
    expect(t.suspects.size).toBe(1);
    expect(d.map((g) => g.key)).toEqual(['k-123456']);
  });

  it('one integer key (collected as numbers, checked at the end): dense and sparse spans, int32, negatives, asked for mid-stream', async () => {
    const keyOf = async (bs: arrow.RecordBatch[]) => (await dups([bs], ['id'])).d.map((g) => [g.key, g.rows.map((r) => r.row)]);
    // sparse (sorted, not a bitmap): a trillion apart
    expect(await keyOf([batch({ ID: big([1n, 10n ** 12n, 5n]) }), batch({ ID: big([10n ** 12n, -7n, 1n, 10n ** 12n]) })])).toEqual([['1', [0, 5]], ['1000000000000', [1, 3, 6]]]);
    // dense, with negatives
    expect(await keyOf([batch({ ID: big([-3n, -2n, -1n, 0n]) }), batch({ ID: big([-1n, 9n]) })])).toEqual([['-1', [2, 4]]]);
    expect(await keyOf([batch({ ID: int32([2147483647, -2147483648, 0]) }), batch({ ID: int32([0, 2147483647]) })])).toEqual([['2147483647', [0, 4]], ['0', [2, 3]]]);
    // asked for between batches (nothing yet), then a later batch repeats an earlier key
    const t = new KeyTracker([0]);
    t.add(batch({ ID: big([1n, 2n, 3n]) }));
    expect(t.suspects.size).toBe(0);
    t.add(batch({ ID: big([4n, 2n]) }));
    expect(t.suspects.size).toBe(1);
    expect((await exactDuplicates(1, async () => [batch({ ID: big([1n, 2n, 3n]) }), batch({ ID: big([4n, 2n]) })], t, null)).map((g) => g.key)).toEqual(['2']);
  });

  it('an integer key marked as bits moves to numbers when the keys turn sparse mid-batch, repeats on both sides found', async () => {
    const dense = Array.from({ length: 5000 }, (_, i) => BigInt(i));
    const f = [batch({ ID: big([...dense, 7n]) }), batch({ ID: big([10n ** 12n, 3n, 10n ** 12n, 4999n, 2n * 10n ** 12n]) }), batch({ ID: big([7n, 2n * 10n ** 12n]) })];
    const { t, d } = await dups([f], ['id']);
    expect(t.suspects.size).toBe(5);
    expect(d.map((g) => [g.key, g.rows.map((r) => r.row)])).toEqual([['3', [3, 5002]], ['7', [7, 5000, 5006]], ['4999', [4999, 5004]], ['1000000000000', [5001, 5003]], ['2000000000000', [5005, 5007]]]);
  });

  it('an integer key leaves the collecting road for hashing (a key beyond ±2^53, a NULL) and still finds repeats on both sides', async () => {
    const huge = 2n ** 60n;
    const f = [batch({ ID: big([1n, 2n, 3n]) }), batch({ ID: big([huge, 2n, 4n]) }), batch({ ID: big([huge + 1n, huge, 3n]) })];
    expect((await dups([f], ['id'])).d.map((g) => [g.key, g.rows.map((r) => r.row)])).toEqual([['2', [1, 4]], ['3', [2, 8]], ['1152921504606846976', [3, 7]]]);
    const g = [batch({ ID: ids([5, 6]) }), batch({ ID: ids([null, 6, null]) })];
    expect((await dups([g], ['id'])).d.map((x) => [x.key, x.rows.map((r) => r.row)])).toEqual([['6', [1, 3]], ['NULL', [2, 4]]]);
  });

  it('duplicatesOf names each repeated value once, by bitmap or by sort', () => {
    expect(duplicatesOf(Float64Array.from([3, 1, 3, 2, 3, 1]))).toEqual([3, 1]);
    expect(duplicatesOf(Float64Array.from([5e12, -5e12, 5e12, 0, 5e12]))).toEqual([5e12]);
    expect(duplicatesOf(Float64Array.from([7]))).toEqual([]);
    expect(duplicatesOf(Float64Array.from([1, 2, 2 ** 40]))).toEqual([]);
  });

  it('a key column the extract lacks is named', () => {
    expect(() => KeyTracker.forSchema(batch({ ID: ids([1]) }).schema, ['CAT_ID'], 'category on branch b0'))
      .toThrow('etl: category on branch b0: unique_key column CAT_ID is not a column of the extract (columns: ID)');
  });

  it('dedupe: latest drops all but the greatest CDC value per key (last read on a tie)', async () => {
    const b0 = batch({ ID: ids([1, 1, 2, 3]), UPD: ts([5n, 9n, 1n, 4n]) });
    const b1 = batch({ ID: ids([1, 2, 3]), UPD: ts([7n, 1n, 2n]) });
    const { d } = await dups([[b0, b1]], ['ID'], 'UPD');
    const drop = olderRows(d);
    expect([...drop.get(0)!].sort()).toEqual([0, 2, 4, 6]);
    const kept = withoutRows([b0, b1], drop.get(0)!);
    const rows = kept.flatMap((b) => [...b].map((r) => `${r!.ID}@${r!.UPD}`));
    expect(rows).toEqual(['1@0.009', '3@0.004', '2@0.001']); // µs shown as ms by arrow-js
  });
});

describe('KeyTracker cost (printed, not asserted)', () => {
  it('checks a million int64 keys', () => {
    const n = 1_000_000;
    const b = batch({ ID: arrow.vectorFromArray(BigInt64Array.from({ length: n }, (_, i) => BigInt(i))) });
    const t0 = performance.now();
    const t = new KeyTracker([0]);
    t.add(b);
    console.log(`key-check: ${n} int64 keys in ${(performance.now() - t0).toFixed(0)} ms, suspects ${t.suspects.size}`);
    expect(t.suspects.size).toBe(0);
  });
});
