import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { CopyDecoder, NUMERIC_INEXACT, NUMERIC_OK, NUMERIC_OVERFLOW, decodeNumeric } from './pg-copy-decoder';
import { parseTimestampMicros, formatMicros, toScaledBigInt, scaledToText } from './values';

function numericBytes(text: string): Buffer {
  // Postgres numeric send format from a decimal string (test helper)
  const neg = text.startsWith('-');
  const [ip, fp = ''] = text.replace('-', '').split('.');
  const intGroups: number[] = [];
  for (let i = ip.length; i > 0; i -= 4) intGroups.unshift(Number(ip.slice(Math.max(0, i - 4), i)));
  const fracPadded = fp.padEnd(Math.ceil(fp.length / 4) * 4, '0');
  const fracGroups: number[] = [];
  for (let i = 0; i < fracPadded.length; i += 4) fracGroups.push(Number(fracPadded.slice(i, i + 4)));
  const digits = [...intGroups, ...fracGroups];
  const b = Buffer.alloc(8 + digits.length * 2);
  b.writeInt16BE(digits.length, 0); b.writeInt16BE(intGroups.length - 1, 2); b.writeUInt16BE(neg ? 0x4000 : 0, 4); b.writeInt16BE(fp.length, 6);
  digits.forEach((d, i) => b.writeInt16BE(d, 8 + i * 2));
  return b;
}

function read(words: Uint32Array): bigint {
  return BigInt.asIntN(128, (BigInt(words[3]) << 96n) | (BigInt(words[2]) << 64n) | (BigInt(words[1]) << 32n) | BigInt(words[0]));
}

describe('binary numeric decoding', () => {
  it.each([
    ['123.45', 2, 12345n], ['-123.45', 4, -1234500n], ['0.5', 2, 50n], ['98765432109876543210.1234', 4, 987654321098765432101234n],
    ['-1', 0, -1n], ['4294967296', 0, 4294967296n], ['-4294967296', 0, -4294967296n], ['1.500', 2, 150n], ['12345678', 0, 12345678n],
    ['-1.0000', 2, -100n], ['-0.00500', 3, -5n], ['1.37', 2, 137n], ['-1.37', 2, -137n], ['123456789012.3400', 2, 12345678901234n],
  ])('%s at scale %i', (text, scale, want) => {
    const w = new Uint32Array(4);
    expect(decodeNumeric(numericBytes(text), 0, scale, w, 0)).toBe(NUMERIC_OK);
    expect(read(w)).toBe(want);
  });
  // a value the column's scale would round is refused (the unit fails naming the column), never rounded quietly
  it.each([['1.005', 2], ['-1.005', 2], ['-0.005', 2], ['0.0049', 2], ['123456789012.3456', 2], ['0.0000000001', 2], ['98765432109876543210.12345', 4]])('%s at scale %i: inexact', (text, scale) => {
    expect(decodeNumeric(numericBytes(text), 0, Number(scale), new Uint32Array(4), 0)).toBe(NUMERIC_INEXACT);
  });
  it('a value of more digits than the column\'s precision is refused (overflow), on the Number and the BigInt road', () => {
    const w = new Uint32Array(4);
    expect(decodeNumeric(numericBytes('99999.99'), 0, 2, w, 0, 7)).toBe(NUMERIC_OK);
    expect(read(w)).toBe(9999999n);
    expect(decodeNumeric(numericBytes('100000.00'), 0, 2, w, 0, 7)).toBe(NUMERIC_OVERFLOW);
    expect(decodeNumeric(numericBytes('-100000'), 0, 2, w, 0, 7)).toBe(NUMERIC_OVERFLOW);
    expect(decodeNumeric(numericBytes('12345678901234567890'), 0, 0, w, 0, 20)).toBe(NUMERIC_OK);
    expect(decodeNumeric(numericBytes('123456789012345678901'), 0, 0, w, 0, 20)).toBe(NUMERIC_OVERFLOW);
    expect(decodeNumeric(numericBytes('-123456789012345678901'), 0, 0, w, 0, 20)).toBe(NUMERIC_OVERFLOW);
  });
  it('agrees with exact BigInt arithmetic on many values and scales; digits beyond the scale are refused, zeros aside', () => {
    let seed = 12345;
    const rnd = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed; };
    let inexact = 0;
    for (let n = 0; n < 5000; n++) {
      const ip = String(rnd() % 10 ** (rnd() % 9)) + (n % 7 === 0 ? String(rnd() % 100000) : '');
      const fp = String(rnd()).padStart(10, '0').slice(0, rnd() % 9);
      const text = `${n % 2 ? '-' : ''}${ip}${fp ? `.${fp}` : ''}`;
      const scale = rnd() % 8;
      const neg = text.startsWith('-');
      const [i, f = ''] = text.replace('-', '').split('.');
      const digits = BigInt(i + f.padEnd(scale, '0').slice(0, scale));
      const lost = /[1-9]/.test(f.slice(scale));
      const w = new Uint32Array(4);
      const r = decodeNumeric(numericBytes(text), 0, scale, w, 0);
      if (lost) { inexact++; expect([text, scale, r]).toEqual([text, scale, NUMERIC_INEXACT]); continue; }
      expect(r).toBe(NUMERIC_OK);
      expect([text, scale, read(w)]).toEqual([text, scale, neg ? -digits : digits]);
    }
    expect(inexact).toBeGreaterThan(500);
  });
  it('round-trips timestamps and decimals through text', () => {
    expect(formatMicros(parseTimestampMicros('2024-01-01 10:00:00.123456'))).toBe('2024-01-01 10:00:00.123456');
    expect(formatMicros(parseTimestampMicros('1969-12-31 23:59:59.5'))).toBe('1969-12-31 23:59:59.500000');
    expect(scaledToText(toScaledBigInt('-12.3', 3), 3)).toBe('-12.300');
    expect(toScaledBigInt('1e3', 0)).toBe(1000n);
  });
});

describe('CopyDecoder stream', () => {
  /** CopyData message payloads of (int8, timestamp, text) rows, as Postgres sends them: header with the first row, one row each, end marker alone. */
  function messages(rows: [bigint | null, bigint | null, string | null][]): Buffer[] {
    const PG_EPOCH = 946_684_800_000_000n;
    const out: Buffer[] = rows.map(([id, ts, s]) => {
      const parts: Buffer[] = [];
      const h = Buffer.alloc(2); h.writeInt16BE(3); parts.push(h);
      for (const [v, enc] of [[id, (x: bigint) => { const b = Buffer.alloc(8); b.writeBigInt64BE(x); return b; }], [ts, (x: bigint) => { const b = Buffer.alloc(8); b.writeBigInt64BE(x - PG_EPOCH); return b; }], [s, (x: string) => Buffer.from(x, 'utf8')]] as const) {
        const len = Buffer.alloc(4);
        if (v === null) { len.writeInt32BE(-1); parts.push(len); continue; }
        const body = (enc as (x: unknown) => Buffer)(v);
        len.writeInt32BE(body.length); parts.push(len, body);
      }
      return Buffer.concat(parts);
    });
    out[0] = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8), out[0]]);
    const end = Buffer.alloc(2); end.writeInt16BE(-1);
    return [...out, end];
  }

  it('refuses a stream that is not binary COPY, and a tuple running past its message', () => {
    const cols = [{ type: { kind: 'long' as const }, targetIndex: 0, track: null }];
    const target = { schema: new arrow.Schema([new arrow.Field('ID', new arrow.Int64(), true)]), fields: [{ name: 'ID', type: { kind: 'long' as const } }], constants: {}, track: [] };
    expect(() => new CopyDecoder(cols, target as never, 10, { rows: 0, max: {} } as never).pushMessage(Buffer.from('id\n1\n'))).toThrow(/not a binary COPY stream/);
    const [first] = messages([[1n, 1n, 'a']]);
    const cut = first.subarray(0, first.length - 1);
    const three = [{ type: { kind: 'long' as const }, targetIndex: 0, track: null }, { type: { kind: 'timestamp' as const }, targetIndex: -1, track: null }, { type: { kind: 'string' as const }, targetIndex: -1, track: null }];
    expect(() => new CopyDecoder(three, target as never, 10, { rows: 0, max: {} } as never).pushMessage(cut)).toThrow();
  });

  it('decodes 64-bit ids and timestamps exactly (negative, pre-epoch, far future), nulls and text, across batch sizes, and tracks maxima', () => {
    const rows: [bigint | null, bigint | null, string | null][] = [
      [1n, 0n, 'a'], [-1n, -1n, null], [9007199254740993n, 946_684_799_999_999n, 'é — long text '.repeat(10)],
      [-9223372036854775808n, -62135596800000000n, ''], [9223372036854775807n, 253402300799999999n, 'z'], [null, null, 'n'],
      [4294967296n, 4294967295n, 'x'], [-4294967297n, 1_700_000_000_123_456n, 'y'],
    ];
    const msgs = messages(rows);
    const schema = new arrow.Schema([new arrow.Field('ID', new arrow.Int64(), true), new arrow.Field('TS', new arrow.TimestampMicrosecond(), true), new arrow.Field('S', new arrow.Utf8(), true)]);
    const target = { schema, fields: [{ name: 'ID', type: { kind: 'long' as const } }, { name: 'TS', type: { kind: 'timestamp' as const } }, { name: 'S', type: { kind: 'string' as const } }], constants: {}, track: ['ID', 'TS'] };
    const cols = [{ type: { kind: 'long' as const }, targetIndex: 0, track: 'ID' }, { type: { kind: 'timestamp' as const }, targetIndex: 1, track: 'TS' }, { type: { kind: 'string' as const }, targetIndex: 2, track: null }];
    for (const batchSize of [1, 3, 7, 64]) {
      const stats = { rows: 0, max: {} as Record<string, { cmp: unknown; text: string }> };
      const dec = new CopyDecoder(cols, target as never, batchSize, stats as never);
      const batches: arrow.RecordBatch[] = [];
      for (const m of msgs) batches.push(...dec.pushMessage(m));
      expect(dec.done).toBe(true);
      if (dec.buffered) batches.push(dec.flush());
      // timestamps as their raw µs (arrow-js's get() would turn them into float milliseconds)
      const raw = (b: arrow.RecordBatch, c: number, i: number) => (b.getChildAt(c)!.isValid(i) ? (b.data.children[c].values as BigInt64Array)[i] : null);
      const got = batches.flatMap((b) => Array.from({ length: b.numRows }, (_, i) => [raw(b, 0, i), raw(b, 1, i), b.getChildAt(2)!.get(i)]));
      expect(got).toEqual(rows);
      expect(stats.max.ID.cmp).toBe(9223372036854775807n);
      expect(stats.max.TS.cmp).toBe(253402300799999999n);
      expect(stats.max.TS.text).toBe('9999-12-31 23:59:59.999999');
    }
  });
});

describe('CopyDecoder: the inline fixed-width decodings', () => {
  const be = (n: number, f: (b: Buffer) => void) => { const b = Buffer.alloc(n); f(b); return b; };
  const col = (kind: string, extra: object = {}) => ({ type: { kind, ...extra } as never, targetIndex: 0, track: null });

  /** One column's values through a stream of one-row messages; each value's wire bytes given (null = NULL). */
  function decodeColumn(c: ReturnType<typeof col>, arrowType: arrow.DataType, values: (Buffer | null)[]): arrow.Data {
    const msgs = values.map((v, i) => {
      const len = be(4, (b) => b.writeInt32BE(v ? v.length : -1));
      const row = Buffer.concat([be(2, (b) => b.writeInt16BE(1)), len, ...(v ? [v] : [])]);
      return i === 0 ? Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8), row]) : row;
    });
    const schema = new arrow.Schema([new arrow.Field('V', arrowType, true)]);
    const dec = new CopyDecoder([c], { schema, fields: [{ name: 'V', type: c.type }], constants: {}, track: [] } as never, 1000, { rows: 0, max: {} } as never);
    for (const m of [...msgs, be(2, (b) => b.writeInt16BE(-1))]) expect(dec.pushMessage(m)).toEqual([]);
    expect(dec.done).toBe(true);
    return dec.flush().data.children[0];
  }
  const valid = (d: arrow.Data, i: number) => !d.nullBitmap || ((d.nullBitmap[i >> 3] >> (i & 7)) & 1) === 1;

  it('int2 and int4 (signed), date (before and after 2000), bool, with NULLs', () => {
    const ints = decodeColumn(col('int'), new arrow.Int32(), [be(2, (b) => b.writeInt16BE(-32768)), be(2, (b) => b.writeInt16BE(32767)), be(4, (b) => b.writeInt32BE(-2147483648)), null, be(4, (b) => b.writeInt32BE(2147483647)), be(2, (b) => b.writeInt16BE(-1))]);
    expect([...(ints.values as Int32Array)].filter((_, i) => valid(ints, i))).toEqual([-32768, 32767, -2147483648, 2147483647, -1]);
    expect(valid(ints, 3)).toBe(false);
    // days since 2000-01-01 → since 1970-01-01
    const dates = decodeColumn(col('date'), new arrow.DateDay(), [be(4, (b) => b.writeInt32BE(-10957)), be(4, (b) => b.writeInt32BE(0)), be(4, (b) => b.writeInt32BE(-730119 - 10957)), be(4, (b) => b.writeInt32BE(2_932_896))]);
    expect([...(dates.values as Int32Array)]).toEqual([0, 10957, -730119, 2_932_896 + 10957]);
    const bools = decodeColumn(col('boolean'), new arrow.Bool(), [Buffer.from([1]), Buffer.from([0]), null, Buffer.from([1])]);
    expect([0, 1, 2, 3].map((i) => (valid(bools, i) ? ((bools.values as Uint8Array)[0] >> i) & 1 : null))).toEqual([1, 0, null, 1]);
  });

  it('float8 bit for bit (−0, ±Infinity, NaN, subnormal, extremes), and numeric NaN as NULL', () => {
    const xs = [0, -0, 1.5, -2.25e-300, Number.MAX_VALUE, Number.MIN_VALUE, Infinity, -Infinity, NaN, 1 / 3];
    const d = decodeColumn(col('double'), new arrow.Float64(), xs.map((x) => be(8, (b) => b.writeDoubleBE(x))));
    expect([...(d.values as Float64Array)]).toEqual(xs);
    expect(Object.is((d.values as Float64Array)[1], -0)).toBe(true);
    const nan = be(8, (b) => { b.writeInt16BE(0, 0); b.writeInt16BE(0, 2); b.writeUInt16BE(0xc000, 4); b.writeInt16BE(0, 6); });
    const n = decodeColumn(col('decimal', { precision: 12, scale: 2 }), new arrow.Decimal(2, 12, 128), [numericBytes('-123.45'), nan, numericBytes('0.5')]);
    expect([valid(n, 0), valid(n, 1), valid(n, 2)]).toEqual([true, false, true]);
    expect(read((n.values as Uint32Array).subarray(0, 4))).toBe(-12345n);
    expect(read((n.values as Uint32Array).subarray(8, 12))).toBe(50n);
  });
});
