import { describe, expect, it } from 'vitest';
import {
  canonicalDouble, canonicalEpochSeconds, canonicalScaled, canonicalTimestampText, canonicalValue, civilFromDays,
  daysFromCivil, epochSecondsOf, toPlain, trimDecimal,
} from './canonical';
import { Digest, hash64, hashToBigInt, prefixOf, rowText } from './row-hash';

describe('canonical form', () => {
  it('normalises decimal scale', () => {
    expect(trimDecimal('123.40')).toBe('123.4');
    expect(trimDecimal('123.4000')).toBe('123.4');
    expect(trimDecimal('100.00')).toBe('100');
    expect(trimDecimal('100')).toBe('100');
    expect(trimDecimal('-0.000')).toBe('0');
    expect(canonicalScaled(12340n, 2)).toBe('123.4');
    expect(canonicalScaled(-5n, 3)).toBe('-0.005');
    expect(canonicalScaled(0n, 4)).toBe('0');
    expect(canonicalScaled(12n, -2)).toBe('1200');
    expect(toPlain('1.5e-7')).toBe('0.00000015');
    expect(toPlain('1.00000000000000e+20')).toBe('100000000000000000000');
  });
  it('compares doubles by value at 15 significant digits', () => {
    expect(canonicalDouble(0.1 + 0.2)).toBe('0.3');
    expect(canonicalDouble(123.4)).toBe('123.4');
    expect(canonicalDouble(-0)).toBe('0');
    expect(canonicalDouble(1e20)).toBe('100000000000000000000');
    expect(canonicalDouble(NaN)).toBe('NaN');
    // exact ties at the 16th digit round half to even, as C printf does
    expect(canonicalDouble(1234567890123455)).toBe('1234567890123460');
    expect(canonicalDouble(1234567890123445)).toBe('1234567890123440');
    expect(canonicalValue('123.40', 'decimal', true)).toBe(canonicalValue(123.4, 'float'));
  });
  it('renders timestamps at their own precision (fraction trimmed), naive ≡ UTC wall clock', () => {
    expect(canonicalEpochSeconds(0)).toBe('1970-01-01 00:00:00');
    expect(canonicalEpochSeconds(-1)).toBe('1969-12-31 23:59:59');
    expect(epochSecondsOf(-1n, 'micro')).toBe(-1);
    expect(epochSecondsOf(1_500_000n, 'micro')).toBe(1);
    expect(canonicalTimestampText('2026-03-04 05:06:07.891')).toBe('2026-03-04 05:06:07.891');
    expect(canonicalTimestampText('2026-03-04 05:06:07.400000')).toBe('2026-03-04 05:06:07.4');
    expect(canonicalTimestampText('2026-03-04 05:06:07.000')).toBe('2026-03-04 05:06:07');
    expect(canonicalTimestampText('2026-03-04T07:06:07+02:00')).toBe('2026-03-04 05:06:07');
    expect(canonicalTimestampText('2026-03-04')).toBe('2026-03-04 00:00:00');
    expect(canonicalValue(new Date(Date.UTC(2026, 2, 4, 5, 6, 7, 999)), 'timestamp')).toBe('2026-03-04 05:06:07.999');
    expect(canonicalValue(new Date(Date.UTC(2026, 2, 4, 5, 6, 7, 0)), 'timestamp')).toBe('2026-03-04 05:06:07');
    expect(canonicalValue(new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 500)), 'timestamp')).toBe('1969-12-31 23:59:59.5');
    for (const d of [-800000, -1, 0, 1, 59, 60, 11016, 20000, 2932896]) {
      const [y, m, dd] = civilFromDays(d);
      expect(daysFromCivil(y, m, dd)).toBe(d);
    }
  });
  it('keeps NULL distinct from the empty string', () => {
    expect(rowText([null])).not.toBe(rowText(['']));
    expect(hashToBigInt(hash64(rowText([null])))).not.toBe(hashToBigInt(hash64(rowText(['']))));
  });
  it('digests are order independent and exact', () => {
    const a = new Digest(); const b = new Digest();
    const hs = Array.from({ length: 1000 }, (_, i) => hash64(String(i)));
    for (const h of hs) a.add(h);
    for (const h of [...hs].reverse()) b.add(h);
    expect(a.sum()).toBe(b.sum());
    expect(a.sum()).toBe(hs.reduce((s, h) => s + hashToBigInt(h), 0n).toString());
    expect(prefixOf(hs[0], 8)).toBe(Number(BigInt.asUintN(64, hashToBigInt(hs[0])) >> 56n));
  });
});
