import * as arrow from 'apache-arrow';
import { describe, expect, test } from 'vitest';
import { decimalValue, textColumn, textValue, TextValueError } from './text-values';

const bad = (t: arrow.DataType, v: string) => { try { textValue(t, v); } catch (e) { expect(e).toBeInstanceOf(TextValueError); return (e as Error).message; } throw new Error(`${v} was accepted`); };
const unscaled = (w: Uint32Array) => BigInt.asIntN(128, BigInt(w[0]) | (BigInt(w[1]) << 32n) | (BigInt(w[2]) << 64n) | (BigInt(w[3]) << 96n));

describe('textValue: exactly or not at all', () => {
  test('integers within their width; no fraction, no silent NaN', () => {
    expect(textValue(new arrow.Int64(), ' -9223372036854775808 ')).toBe(-9223372036854775808n);
    expect(textValue(new arrow.Int32(), '2147483647')).toBe(2147483647);
    expect(bad(new arrow.Int32(), '2147483648')).toMatch(/32-bit integer range/);
    expect(bad(new arrow.Int64(), '10.5')).toBe("'10.5' is not an integer (64-bit)");
    expect(bad(new arrow.Int16(), 'abc')).toMatch(/not an integer/);
    expect(textValue(new arrow.Int64(), '')).toBeNull();
  });
  test('floats, with NaN and infinities spelled as PostgreSQL prints them', () => {
    expect(textValue(new arrow.Float64(), '1e-3')).toBe(0.001);
    expect(textValue(new arrow.Float64(), '-Infinity')).toBe(-Infinity);
    expect(Number.isNaN(textValue(new arrow.Float64(), 'NaN'))).toBe(true);
    expect(Object.is(textValue(new arrow.Float64(), '-0'), -0)).toBe(true);
    expect(bad(new arrow.Float64(), '1,5')).toMatch(/not a number/);
  });
  test('booleans: the usual spellings, anything else refused (was false)', () => {
    expect(['true', 'T', 'yes', '1'].map((v) => textValue(new arrow.Bool(), v))).toEqual([true, true, true, true]);
    expect(['false', 'f', 'NO', '0'].map((v) => textValue(new arrow.Bool(), v))).toEqual([false, false, false, false]);
    expect(bad(new arrow.Bool(), 'maybe')).toMatch(/not a boolean/);
  });
  test('decimals: trailing zeros past the scale are fine, other digits are refused (were cut), as are too many digits', () => {
    const t = new arrow.Decimal(2, 10, 128);
    expect(unscaled(decimalValue(t, '-12.50'))).toBe(-1250n);
    expect(unscaled(decimalValue(t, '12.5000'))).toBe(1250n);
    expect(unscaled(decimalValue(t, '.5'))).toBe(50n);
    expect(bad(t, '1.239')).toMatch(/more than 2 fraction digits/);
    expect(bad(t, '123456789.1')).toMatch(/more than 10 digits/);
    expect(bad(t, '1e3')).toMatch(/not a decimal\(10,2\)/);
    expect(bad(t, '-')).toMatch(/not a decimal/);
  });
  test('dates that exist; timestamps to their unit, zones applied, finer digits refused', () => {
    expect((textValue(new arrow.DateDay(), '0099-12-31') as Date).toISOString()).toBe('0099-12-31T00:00:00.000Z');
    expect(bad(new arrow.DateDay(), '2024-02-30')).toMatch(/not a date/);
    const us = new arrow.Timestamp(arrow.TimeUnit.MICROSECOND);
    expect(textValue(us, '2024-01-02 03:04:05.123456')).toBe(BigInt(Date.UTC(2024, 0, 2, 3, 4, 5)) * 1000n + 123456n);
    expect(textValue(us, '2024-01-02T03:04:05+02:00')).toBe(BigInt(Date.UTC(2024, 0, 2, 1, 4, 5)) * 1000n);
    expect(textValue(us, '1969-12-31 23:59:59.5')).toBe(-500000n);
    expect(textValue(us, '2024-01-02')).toBe(BigInt(Date.UTC(2024, 0, 2)) * 1000n);
    expect(bad(us, '2024-01-02 03:04:05.1234567')).toMatch(/more fraction digits/);
    expect(bad(us, '2024-01-02 25:00:00')).toMatch(/not a timestamp/);
    expect(bad(us, 'yesterday')).toMatch(/not a timestamp/);
  });
  test('a timestamp column keeps its microseconds (built from the exact values, not milliseconds)', () => {
    const us = new arrow.Timestamp(arrow.TimeUnit.MICROSECOND);
    const d = textColumn(us, [textValue(us, '2024-01-02 03:04:05.000001'), null]);
    expect(d.nullCount).toBe(1);
    expect((d.values as BigInt64Array)[0] % 1000000n).toBe(1n);
  });
});
