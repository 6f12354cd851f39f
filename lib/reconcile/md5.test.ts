import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { md5Prefix, RowBytes } from './md5';

describe('md5Prefix', () => {
  it('equals node:crypto on every length around the block boundaries and on UTF-8 text', () => {
    const rb = new RowBytes();
    const inputs = [''];
    for (let n = 1; n < 300; n++) inputs.push(Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((i * 7 + n) % 90))).join(''));
    inputs.push('日本語 héllo \x1e\x1f', 'x'.repeat(5000));
    for (const s of inputs) {
      rb.pos = 0;
      rb.text(s);
      const out = md5Prefix(rb.buf, rb.pos);
      const d = crypto.createHash('md5').update(s).digest();
      expect([out.hi, out.lo], JSON.stringify(s.slice(0, 20))).toEqual([d.readInt32BE(0), d.readUInt32BE(4)]);
    }
  });
});
