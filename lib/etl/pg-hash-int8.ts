const rot = (x: number, k: number) => (x << k) | (x >>> (32 - k));

/**
 * PostgreSQL's `hashint8(bigint)` (src/backend/access/hash/hashfunc.c: the two
 * halves folded, then `hash_uint32`, Bob Jenkins' lookup3 `final` mix) for a
 * safe integer, as the signed int4 the server returns. `deletes: detect` sums it
 * per key range on both sides: one C call a row at the source, and a mix no
 * arithmetic pattern of keys can cancel, as a polynomial digest could.
 */
export function pgHashInt8(k: number): number {
  const hi = Math.floor(k / 4294967296);
  const h = hi >>> 0;
  const lo = ((k - hi * 4294967296) ^ (k >= 0 ? h : ~h)) >>> 0;
  let a = (0x9e3779b9 + 4 + 3923095) | 0, b = a, c = a;
  a = (a + lo) | 0;
  c ^= b; c = (c - rot(b, 14)) | 0;
  a ^= c; a = (a - rot(c, 11)) | 0;
  b ^= a; b = (b - rot(a, 25)) | 0;
  c ^= b; c = (c - rot(b, 16)) | 0;
  a ^= c; a = (a - rot(c, 4)) | 0;
  b ^= a; b = (b - rot(a, 14)) | 0;
  c ^= b; c = (c - rot(b, 24)) | 0;
  return c;
}
