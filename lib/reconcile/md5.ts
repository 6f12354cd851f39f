/**
 * MD5 of a byte range, returning only the first 8 digest bytes as two
 * big-endian 32-bit halves (what row-hash.ts uses), without allocating: the
 * lake decode loop hashes millions of short rows, where a call into
 * node:crypto per row costs more than the hashing. Checked against node:crypto.
 */
const K = new Int32Array(64);
for (let i = 0; i < 64; i++) K[i] = Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) | 0;
const S = new Int32Array([7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
  4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]);
const G = new Int32Array(64);
for (let i = 0; i < 64; i++) G[i] = i < 16 ? i : i < 32 ? (5 * i + 1) & 15 : i < 48 ? (3 * i + 5) & 15 : (7 * i) & 15;
const M = new Int32Array(16);

const bswap = (x: number) => ((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24);

/** Result of md5Prefix: `hi` signed, `lo` unsigned (as Buffer.readInt32BE / readUInt32BE of the digest). */
export const md5Out = { hi: 0, lo: 0 };

/**
 * Hash `buf[0, len)`. The buffer must have room for the padding (len + 72
 * bytes); bytes past `len` are overwritten.
 */
export function md5Prefix(buf: Uint8Array, len: number): typeof md5Out {
  const total = (((len + 8) >> 6) + 1) << 6;
  buf[len] = 0x80;
  buf.fill(0, len + 1, total - 8);
  const bits = len * 8;
  buf[total - 8] = bits & 0xff; buf[total - 7] = (bits >>> 8) & 0xff; buf[total - 6] = (bits >>> 16) & 0xff; buf[total - 5] = (bits >>> 24) & 0xff;
  const high = Math.floor(bits / 4294967296);
  buf[total - 4] = high & 0xff; buf[total - 3] = (high >>> 8) & 0xff; buf[total - 2] = (high >>> 16) & 0xff; buf[total - 1] = (high >>> 24) & 0xff;
  let a0 = 0x67452301, b0 = 0xefcdab89 | 0, c0 = 0x98badcfe | 0, d0 = 0x10325476;
  for (let off = 0; off < total; off += 64) {
    for (let j = 0; j < 16; j++) {
      const p = off + 4 * j;
      M[j] = buf[p] | (buf[p + 1] << 8) | (buf[p + 2] << 16) | (buf[p + 3] << 24);
    }
    let a = a0, b = b0, c = c0, d = d0;
    for (let i = 0; i < 64; i++) {
      let f: number;
      if (i < 16) f = (b & c) | (~b & d);
      else if (i < 32) f = (d & b) | (~d & c);
      else if (i < 48) f = b ^ c ^ d;
      else f = c ^ (b | ~d);
      const x = (a + f + K[i] + M[G[i]]) | 0;
      const s = S[i];
      a = d; d = c; c = b;
      b = (b + ((x << s) | (x >>> (32 - s)))) | 0;
    }
    a0 = (a0 + a) | 0; b0 = (b0 + b) | 0; c0 = (c0 + c) | 0; d0 = (d0 + d) | 0;
  }
  md5Out.hi = bswap(a0) | 0;
  md5Out.lo = bswap(b0) >>> 0;
  return md5Out;
}

/** A growable byte buffer a row's canonical bytes are written into. */
export class RowBytes {
  buf = new Uint8Array(4096);
  pos = 0;
  private readonly enc = new TextEncoder();
  /** Make room for n more bytes (plus the MD5 padding). */
  ensure(n: number): void {
    if (this.pos + n + 80 <= this.buf.length) return;
    const nb = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n + 80));
    nb.set(this.buf.subarray(0, this.pos));
    this.buf = nb;
  }
  byte(b: number): void { this.ensure(1); this.buf[this.pos++] = b; }
  bytes(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.ensure(n);
    if (n < 32) { const b = this.buf; let p = this.pos; for (let k = start; k < end; k++) b[p++] = src[k]; this.pos = p; }
    else { this.buf.set(src.subarray(start, end), this.pos); this.pos += n; }
  }
  /** A string as UTF-8 (ASCII fast path). */
  text(s: string): void {
    const n = s.length;
    this.ensure(n * 3);
    const b = this.buf;
    let p = this.pos;
    for (let k = 0; k < n; k++) {
      const c = s.charCodeAt(k);
      if (c > 127) { this.pos += this.enc.encodeInto(s, b.subarray(this.pos)).written; return; }
      b[p++] = c;
    }
    this.pos = p;
  }
}
