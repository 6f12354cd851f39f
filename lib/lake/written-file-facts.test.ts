import { describe, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import { encodeBound, type ColumnStats } from './bounds';
import { encodeParquetStreaming, narrowBatches, scannedByType, statsOf, writtenFileFacts } from './parquet';
import { arrowSchemaOf, icebergSchemaFromArrow, primitiveTypes } from './schema';
import { batchOf } from './test-helpers';

// A written file's statistics come from its footer (writtenFileFacts) instead of a scan of every
// column (statsOf): they must give the same manifest metrics (counts and encoded bounds), type by
// type, across row groups, with nulls, negative values, bytes 00/FF, strings and bytes past the
// footer's truncation length (64 bytes), multi-byte characters, and NaN.

const N = 3000;
/** 128-bit decimal words (little-endian 32-bit words, two's complement) of unscaled values; null where v is null. */
function decimal(values: (bigint | null)[], precision: number, scale: number): arrow.Data {
  const w = new Uint32Array(values.length * 4);
  const valid = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => {
    if (v === null) return;
    valid[i >> 3] |= 1 << (i & 7);
    const u = BigInt.asUintN(128, v);
    for (let k = 0; k < 4; k++) w[i * 4 + k] = Number((u >> BigInt(32 * k)) & 0xffffffffn);
  });
  const nulls = values.filter((v) => v === null).length;
  return arrow.makeData({ type: new arrow.Decimal(scale, precision, 128), length: values.length, nullCount: nulls, nullBitmap: valid, data: w });
}

const SOURCE = new arrow.Schema([
  new arrow.Field('i', new arrow.Int32(), true),
  new arrow.Field('l', new arrow.Int64(), false),
  new arrow.Field('d9', new arrow.Decimal(2, 9, 128), true),
  new arrow.Field('d18', new arrow.Decimal(3, 18, 128), true),
  new arrow.Field('d38', new arrow.Decimal(4, 38, 128), true),
  new arrow.Field('s', new arrow.Utf8(), true),
  new arrow.Field('long_s', new arrow.Utf8(), true),
  new arrow.Field('long_u', new arrow.Utf8(), true),
  new arrow.Field('long_b', new arrow.Binary(), true),
  new arrow.Field('long_e', new arrow.Utf8(), true),
  new arrow.Field('b', new arrow.Binary(), true),
  new arrow.Field('day', new arrow.DateDay(), true),
  new arrow.Field('ts', new arrow.TimestampMicrosecond(), true),
  new arrow.Field('tstz', new arrow.TimestampMicrosecond('UTC'), true),
  new arrow.Field('flag', new arrow.Bool(), true),
  new arrow.Field('f', new arrow.Float64(), true),
  new arrow.Field('none', new arrow.Utf8(), true),
  new arrow.Field('tags', new arrow.List(new arrow.Field('element', new arrow.Utf8(), true)), true),
]);

function batch(schema: arrow.Schema, from: number, n: number): arrow.RecordBatch {
  const idx = Array.from({ length: n }, (_, k) => from + k);
  const plain = batchOf(schema, idx.map((i) => ({
    i: i % 7 === 0 ? null : (i * 7919) % 20001 - 10000,
    l: BigInt(i) * 1_000_003n - 2_000_000_000n,
    s: i % 5 === 0 ? null : `${['ä', 'z', 'a', ''][i % 4]}-${(i * 31) % 997}`,
    long_s: `${'x'.repeat(70)}${String((i * 13) % 1000).padStart(4, '0')}`,
    long_u: i % 4 === 0 ? null : `${'ü€'.repeat(i % 3 === 0 ? 5 : 30)}${(i * 17) % 1000}`,
    long_e: `${'😀'.repeat(18)}${i % 10}`,
    long_b: Uint8Array.from({ length: 70 + (i % 20) }, (_, k) => (k === 20 ? (i * 7) % 256 : k === 0 ? 0xff : 0)),
    b: i % 9 === 0 ? null : Uint8Array.from([i % 2 ? 0xff : 0x00, i % 256, 0x00]),
    day: i % 4 === 0 ? null : new Date(((i * 37) % 40_000 - 20_000) * 86_400_000),
    ts: i % 6 === 0 ? null : (i * 1_000_003) % 9_000_000_000 - 4_000_000_000,
    tstz: (i * 17) % 1_000_000,
    flag: i % 3 === 0 ? null : i % 2 === 0,
    f: i % 10 === 0 ? NaN : i % 11 === 0 ? null : (i * 0.37) % 50 - 25,
    none: null,
    tags: i % 8 === 0 ? null : [`t${i % 3}`, null],
  })));
  const cols = plain.data.children.slice();
  cols[2] = decimal(idx.map((i) => (i % 5 === 1 ? null : BigInt((i * 7919) % 200_001 - 100_000))), 9, 2);
  cols[3] = decimal(idx.map((i) => (i % 7 === 2 ? null : BigInt(i) * 1_000_000_007n * (i % 2 ? -1n : 1n))), 18, 3);
  cols[4] = decimal(idx.map((i) => (i % 3 === 1 ? null : BigInt(i) * 10n ** 30n * (i % 2 ? -1n : 1n))), 38, 4);
  return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: n, nullCount: 0, children: cols }));
}

describe('writtenFileFacts', () => {
  test('footer statistics equal a scan of the rows, for every type, over several row groups', async () => {
    const ice = icebergSchemaFromArrow(SOURCE);
    const schema = arrowSchemaOf(ice);
    const types = primitiveTypes(ice);
    const batches = [batch(schema, 0, N), batch(schema, N, N), batch(schema, 2 * N, 500)];
    const bytes = await encodeParquetStreaming(schema, batches, { rowGroupRows: 2048 });
    const byType = scannedByType(schema, types);
    const facts = await writtenFileFacts(bytes, schema, types, statsOf(byType, narrowBatches(byType, batches), types));
    const scanned = statsOf(schema, batches, types);
    expect([...facts.stats.keys()].sort()).toEqual([...scanned.keys()].sort());
    const metrics = (id: number, st: ColumnStats | undefined) => st && {
      id, valueCount: st.valueCount, nullCount: st.nullCount, nanCount: st.nanCount,
      lower: st.min === null ? null : encodeBound(types.get(id) ?? '', st.min, false), upper: st.max === null ? null : encodeBound(types.get(id) ?? '', st.max, true),
    };
    for (const [id, st] of scanned) expect(metrics(id, facts.stats.get(id))).toEqual(metrics(id, st));
    // every column has a compressed size; the statistics are real, not empty
    expect(new Set(facts.columnSizes.keys())).toEqual(new Set(schema.fields.map((f) => f.name)));
    const l = scanned.get(ice.fields.find((f) => f.name === 'l')!.id)!;
    expect([l.min, l.max]).toEqual([-2_000_000_000n, BigInt(2 * N + 499) * 1_000_003n - 2_000_000_000n]);
    expect(scanned.get(ice.fields.find((f) => f.name === 'f')!.id)!.nanCount).toBeGreaterThan(0);
    // scanned in the rows by type: the double (NaN counts), the decimal stored as fixed-length bytes
    // and the list; the long strings' truncated footer values were used, except where the truncated
    // value (64 bytes of 4-byte characters) keeps no more characters than the bound: decoded from the file
    const id = (name: string) => ice.fields.find((f) => f.name === name)!.id;
    expect(new Set(byType.fields.map((f) => f.name))).toEqual(new Set(['d38', 'f', 'tags']));
    expect([...facts.decoded]).toEqual([id('long_e')]);
    const u = scanned.get(id('long_u'))!;
    expect(facts.stats.get(id('long_u'))!.max).not.toEqual(u.max); // the footer's value really was truncated
  });

  test('sizes only, when the caller has the statistics', async () => {
    const ice = icebergSchemaFromArrow(SOURCE);
    const schema = arrowSchemaOf(ice);
    const batches = [batch(schema, 0, 100)];
    const facts = await writtenFileFacts(await encodeParquetStreaming(schema, batches), schema, primitiveTypes(ice), null);
    expect(facts.decoded.size).toBe(0);
    expect(facts.stats.size).toBe(0);
    expect(facts.columnSizes.get('l')).toBeGreaterThan(0);
  });
});
