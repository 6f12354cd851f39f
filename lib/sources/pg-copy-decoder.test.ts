import { describe, expect, it } from 'vitest';
import { decodeNumeric } from './pg-copy-decoder';
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
    ['-1', 0, -1n], ['4294967296', 0, 4294967296n], ['-4294967296', 0, -4294967296n], ['1.005', 2, 101n], ['12345678', 0, 12345678n],
  ])('%s at scale %i', (text, scale, want) => {
    const w = new Uint32Array(4);
    expect(decodeNumeric(numericBytes(text), 0, scale, w, 0)).toBe(true);
    expect(read(w)).toBe(want);
  });
  it('round-trips timestamps and decimals through text', () => {
    expect(formatMicros(parseTimestampMicros('2024-01-01 10:00:00.123456'))).toBe('2024-01-01 10:00:00.123456');
    expect(formatMicros(parseTimestampMicros('1969-12-31 23:59:59.5'))).toBe('1969-12-31 23:59:59.500000');
    expect(scaledToText(toScaledBigInt('-12.3', 3), 3)).toBe('-12.300');
    expect(toScaledBigInt('1e3', 0)).toBe(1000n);
  });
});
