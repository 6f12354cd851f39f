import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import pg from 'pg';
import { createScratchDatabase } from '../testing/pg';
import { cellRenderer, cellWriter, arrowKind } from './arrow-canonical';
import { md5Prefix, RowBytes } from './md5';
import { compareAsFloat, daysFromCivil } from './canonical';
import { pgCanonicalExpr, pgHash64, pgIdent, pgKeyHash, pgKind, pgPrefix, pgRowText } from './pg-sql';
import { KEY_MIX } from './sql-common';
import { Digest, hash64, hashToBigInt, rowText } from './row-hash';

/**
 * The Postgres canonical SQL and the Node (Arrow) canonicaliser must render
 * every value to the same bytes: each case stores values in a real Postgres
 * column, renders them in SQL, converts the same values to the Arrow type the
 * lake would hold, renders them in Node, and compares text and row hash.
 */

// Arrow data from the text Postgres prints, in the lake's representation.
function microsOf(text: string, zoned: boolean): bigint {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?)?([+-]\d{2}(?::\d{2})?)?$/.exec(text)!;
  const days = daysFromCivil(+m[1], +m[2], +m[3]);
  let sec = days * 86400 + (+(m[4] ?? 0)) * 3600 + (+(m[5] ?? 0)) * 60 + (+(m[6] ?? 0));
  if (zoned && m[8]) { const [h, mi = '0'] = m[8].slice(1).split(':'); sec -= (m[8][0] === '-' ? -1 : 1) * (+h * 3600 + +mi * 60); }
  const frac = (m[7] ?? '').padEnd(6, '0').slice(0, 6);
  return BigInt(sec) * 1_000_000n + BigInt(frac || '0');
}
function unscaled(text: string, scale: number): bigint {
  const neg = text.startsWith('-');
  const [ip, fp = ''] = text.replace('-', '').split('.');
  const v = BigInt(ip + fp.padEnd(scale, '0').slice(0, scale));
  return neg ? -v : v;
}
function toArrow(values: (string | null)[], type: arrow.DataType, opts: { zoned?: boolean } = {}): arrow.Data {
  const n = values.length;
  const valid = values.map((v) => v !== null);
  const withNulls = <T extends arrow.DataType>(t: T, extra: Record<string, unknown>) => {
    const bitmap = new Uint8Array(Math.ceil(n / 8));
    valid.forEach((ok, i) => { if (ok) bitmap[i >> 3] |= 1 << (i & 7); });
    return arrow.makeData({ type: t, length: n, nullCount: valid.filter((x) => !x).length, nullBitmap: bitmap, ...extra } as never) as arrow.Data;
  };
  switch (type.typeId) {
    case arrow.Type.Decimal: {
      const scale = (type as arrow.Decimal).scale;
      const words = new Uint32Array(n * 4);
      values.forEach((v, i) => {
        if (v === null) return;
        let u = BigInt.asUintN(128, unscaled(v, scale));
        for (let k = 0; k < 4; k++) { words[i * 4 + k] = Number(u & 0xffffffffn); u >>= 32n; }
      });
      return withNulls(type, { data: words });
    }
    case arrow.Type.Timestamp:
      return withNulls(type, { data: BigInt64Array.from(values, (v) => (v === null ? 0n : microsOf(v, !!opts.zoned))) });
    case arrow.Type.Date:
      return withNulls(type, { data: Int32Array.from(values, (v) => (v === null ? 0 : Number(microsOf(v, false) / 86_400_000_000n))) });
    case arrow.Type.Bool:
      return arrow.vectorFromArray(values.map((v) => (v === null ? null : v === 'true' || v === 't')), type).data[0] as arrow.Data;
    case arrow.Type.Binary:
      return arrow.vectorFromArray(values.map((v) => (v === null ? null : new Uint8Array(Buffer.from(v.slice(2), 'hex')))), type).data[0] as arrow.Data;
    case arrow.Type.Int:
      if ((type as arrow.Int).bitWidth === 64) return withNulls(type, { data: BigInt64Array.from(values, (v) => (v === null ? 0n : BigInt(v))) });
      return arrow.vectorFromArray(values.map((v) => (v === null ? null : Number(v))), type).data[0] as arrow.Data;
    case arrow.Type.Float:
      return arrow.vectorFromArray(values.map((v) => (v === null ? null : Number(v))), type).data[0] as arrow.Data;
    default:
      return arrow.vectorFromArray(values, type).data[0] as arrow.Data;
  }
}

interface Case { pgType: string; values: (string | null)[]; lake: arrow.DataType; zoned?: boolean }
const cases: Record<string, Case> = {
  c_int2: { pgType: 'smallint', values: ['0', '-32768', '32767', null], lake: new arrow.Int16() },
  c_int4: { pgType: 'integer', values: ['1', '-2147483648', '2147483647', null], lake: new arrow.Int32() },
  c_int8: { pgType: 'bigint', values: ['9223372036854775807', '-9223372036854775808', '0', null], lake: new arrow.Int64() },
  c_int8_as_long_double: { pgType: 'bigint', values: ['12345', '-1', '0', null], lake: new arrow.Float64() },
  c_num: { pgType: 'numeric(18,2)', values: ['123.40', '-0.05', '100.00', null], lake: new arrow.Decimal(2, 18, 128) },
  // decimal scale normalised: numeric(18,2) in the source, decimal(20,4) in the lake after a schema union
  c_num_wider: { pgType: 'numeric(18,2)', values: ['123.40', '-0.05', '9999999999999999.99', null], lake: new arrow.Decimal(4, 20, 128) },
  c_num_big: { pgType: 'numeric(38,10)', values: ['1234567890123456789012345678.0123456789', '-0.0000000001', '0', null], lake: new arrow.Decimal(10, 38, 128) },
  // a decimal that the lake stores as a double: compared by value
  c_num_double: { pgType: 'numeric(12,3)', values: ['123.400', '0.100', '-98765.432', null], lake: new arrow.Float64() },
  c_num_free: { pgType: 'numeric', values: ['123.4000', '1e-7', '12345678901234567890', null], lake: new arrow.Decimal(9, 38, 128) },
  c_float4: { pgType: 'real', values: ['0.1', '3.4028235e+38', '-1.5', null], lake: new arrow.Float32() },
  c_float8: { pgType: 'double precision', values: ['0.30000000000000004', '1e+20', '1.5e-07', 'NaN', '1234567890123455', '-0', null], lake: new arrow.Float64() },
  c_float8_as_decimal: { pgType: 'double precision', values: ['123.4', '0.1', null], lake: new arrow.Decimal(4, 18, 128) },
  c_text: { pgType: 'text', values: ['', 'héllo wörld', 'tab\tnew\nline', '日本語', ' trailing ', null], lake: new arrow.Utf8() },
  c_varchar: { pgType: 'varchar(20)', values: ['a', '', null], lake: new arrow.Utf8() },
  c_char: { pgType: 'char(5)', values: ['ab', 'abcde', null], lake: new arrow.Utf8() },
  c_bool: { pgType: 'boolean', values: ['true', 'false', null], lake: new arrow.Bool() },
  c_date: { pgType: 'date', values: ['2026-01-01', '1969-12-31', '0099-03-01', null], lake: new arrow.DateDay() },
  c_date_as_ts: { pgType: 'date', values: ['2026-01-01', null], lake: new arrow.TimestampMicrosecond() },
  c_ts: { pgType: 'timestamp(6)', values: ['2026-03-04 05:06:07.999999', '1969-12-31 23:59:59.5', '2026-01-01 00:00:00', null], lake: new arrow.TimestampMicrosecond() },
  // naive source, lake stores UTC of the same wall clock
  c_ts_naive_utc: { pgType: 'timestamp(3)', values: ['2026-03-04 05:06:07.123', null], lake: new arrow.TimestampMicrosecond('UTC') },
  c_ts0: { pgType: 'timestamp(0)', values: ['2026-03-04 05:06:07', null], lake: new arrow.TimestampMicrosecond() },
  c_tstz: { pgType: 'timestamptz', values: ['2026-03-04 05:06:07.25+00', '2026-06-30 23:30:00+00', null], lake: new arrow.TimestampMicrosecond('UTC'), zoned: true },
  c_bytea: { pgType: 'bytea', values: ['\\x00ff10', '\\x', null], lake: new arrow.Binary() },
  c_uuid: { pgType: 'uuid', values: ['6f1c2a0e-8a7b-4c1d-9e2f-0123456789ab', null], lake: new arrow.Utf8() },
};

describe('Postgres canonical SQL ≡ Node canonicaliser', () => {
  let db: { url: string; drop(): Promise<void> };
  let client: pg.Client;
  beforeAll(async () => {
    db = await createScratchDatabase('dqcanon');
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(`SET TIME ZONE 'Asia/Riyadh'`); // a non-UTC session must not change the canonical form
  });
  afterAll(async () => { await client.end(); await db.drop(); });

  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: ${c.pgType} → ${c.lake}`, async () => {
      await client.query(`DROP TABLE IF EXISTS t_case; CREATE TABLE t_case (i int, v ${c.pgType})`);
      for (const [i, v] of c.values.entries()) await client.query('INSERT INTO t_case VALUES ($1, $2)', [i, v]);
      const asFloat = compareAsFloat(pgKind(c.pgType), arrowKind(c.lake));
      const col = { name: 'v', sourceType: c.pgType, asFloat };
      const r = await client.query({
        text: `SELECT ${pgCanonicalExpr('t.v', col)} AS canon, CASE WHEN t.v IS NULL THEN NULL ELSE concat(t.v) END AS raw, ${pgHash64(pgRowText([col]))}::text AS h FROM t_case t ORDER BY i`,
        types: { getTypeParser: () => (x: string) => x },
      });
      const data = toArrow(r.rows.map((x) => x.raw), c.lake, { zoned: c.zoned });
      const render = cellRenderer(c.lake, asFloat);
      const write = cellWriter(c.lake, asFloat);
      const rb = new RowBytes();
      r.rows.forEach((row, i) => {
        const node = render(data, i);
        expect(node, `value ${row.raw}`).toBe(row.canon);
        expect(hashToBigInt(hash64(rowText([node]))).toString()).toBe(row.h);
        // the decode loop's byte path: same bytes, same hash
        rb.pos = 0; write(data, i, rb); rb.byte(0x1f);
        expect(hashToBigInt({ ...md5Prefix(rb.buf, rb.pos) }).toString()).toBe(row.h);
      });
    });
  }

  it('the int32 key mix buckets integer keys the same in SQL and in Node', async () => {
    const keys = ['0', '1', '-1', '2147483647', '-2147483648', '4294967297', '9223372036854775807', '-9223372036854775808', '123456789012'];
    const q = { rel: { from: '', where: '' }, keys: [{ name: 'k', sourceType: 'bigint', asFloat: false }], columns: [], keyHash: 'int32' as const };
    const r = await client.query({ text: `SELECT ${pgPrefix(pgKeyHash(q), 8, 'int32')} AS b8, ${pgPrefix(pgKeyHash(q), 32, 'int32')} AS b32 FROM (SELECT unnest($1::bigint[]) AS k) t`, values: [keys] });
    const data = toArrow(keys, new arrow.Int64());
    const words = new Int32Array((data.values as BigInt64Array).buffer, (data.values as BigInt64Array).byteOffset, keys.length * 2);
    r.rows.forEach((row, i) => {
      const hi = Math.imul(words[2 * i], KEY_MIX) >>> 0;
      expect([Number(row.b8), Number(row.b32)]).toEqual([hi >>> 24, hi]);
    });
  });

  it('bucket digests (sum and xor) are the same in SQL and in Node', async () => {
    const vals = Array.from({ length: 500 }, (_, i) => (i % 17 === 0 ? null : `v${i}`));
    const col = { name: 'v', sourceType: 'text', asFloat: false };
    for (const agg of ['sum', 'bit_xor'] as const) {
      const r = await client.query({ text: `SELECT ${agg}(${pgHash64(pgRowText([col]))})::text AS s FROM (SELECT unnest($1::text[]) AS v) t`, values: [vals] });
      const d = new Digest(agg === 'bit_xor');
      for (const v of vals) d.add(hash64(rowText([v])));
      expect(d.sum()).toBe(r.rows[0].s);
    }
  });

  it('a multi-column row hash is the same in SQL and in Node', async () => {
    await client.query(`DROP TABLE IF EXISTS t_row; CREATE TABLE t_row (id int, name text, amt numeric(10,2), at timestamp)`);
    await client.query(`INSERT INTO t_row VALUES (1, 'a', 1.50, '2026-01-02 03:04:05.6'), (2, NULL, NULL, NULL), (3, '', 0, '2026-01-01')`);
    const cols = ['amt', 'at', 'id', 'name'].map((n) => ({ name: n, sourceType: ({ id: 'integer', name: 'text', amt: 'numeric(10,2)', at: 'timestamp' } as Record<string, string>)[n], asFloat: false }));
    const r = await client.query(`SELECT ${pgHash64(pgRowText(cols))}::text AS h FROM t_row t ORDER BY id`);
    const node = [
      rowText(['1.5', '2026-01-02 03:04:05.6', '1', 'a']),
      rowText([null, null, '2', null]),
      rowText(['0', '2026-01-01 00:00:00', '3', '']),
    ].map((s) => hashToBigInt(hash64(s)).toString());
    expect(r.rows.map((x) => x.h)).toEqual(node);
    expect(pgIdent('a"b')).toBe('"a""b"');
  });
});
