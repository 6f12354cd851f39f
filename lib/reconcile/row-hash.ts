import crypto from 'node:crypto';

/**
 * Row and key hashes, identical on every side (the SQL renderers build the same
 * bytes): each field is its canonical text followed by FIELD_SEP; a NULL field
 * is NULL_MARK alone, so NULL ≠ ''. The hash is the first 8 bytes of the MD5
 * of those UTF-8 bytes, read as a signed big-endian 64-bit integer — MD5 because
 * Postgres (`md5()`) and Oracle 11g (`DBMS_OBFUSCATION_TOOLKIT.MD5`) both
 * compute it in SQL, where reading the source is cheapest.
 */
export const FIELD_SEP = '\x1f';
export const NULL_MARK = '\x1e';

/** The canonical row text of canonical field values (null = NULL). */
export function rowText(values: readonly (string | null)[]): string {
  let s = '';
  for (const v of values) s += (v === null ? NULL_MARK : v) + FIELD_SEP;
  return s;
}

/** A 64-bit hash as two 32-bit halves (hi signed, lo unsigned): cheap to sum exactly. */
export interface Hash64 { hi: number; lo: number }

/** MD5 of the text, first 8 bytes. */
export function md5Digest(text: string): Buffer {
  return crypto.hash ? (crypto.hash('md5', text, 'buffer') as unknown as Buffer) : crypto.createHash('md5').update(text).digest();
}

export function hash64(text: string): Hash64 {
  const d = md5Digest(text);
  return { hi: d.readInt32BE(0), lo: d.readUInt32BE(4) };
}

/** The signed 64-bit value of a hash, as Postgres' `('x'||left(md5(s),16))::bit(64)::bigint` gives it. */
export function hashToBigInt(h: Hash64): bigint {
  return (BigInt(h.hi) << 32n) + BigInt(h.lo);
}

/** The top `bits` (1..32) of a key hash: the key-range bucket at that depth. */
export function prefixOf(h: Hash64, bits: number): number {
  return prefix32(h.hi, bits);
}

/** The top `bits` (1..32) of the high 32 bits of a key hash. */
export function prefix32(hi: number, bits: number): number {
  return bits >= 32 ? (hi >>> 0) : (hi >>> (32 - bits));
}

/**
 * Order-independent digest of a set of rows: row count and the exact sum of
 * their signed 64-bit row hashes. Adding rows in any order gives the same digest;
 * a missing, extra, changed or duplicated row changes it.
 */
export class Digest {
  count = 0;
  /** Combine by XOR instead of sum (see DigestKind). */
  constructor(private readonly xor = false) {}
  private hiSum = 0;
  private loSum = 0;
  private big = 0n;
  private pending = 0;
  add(h: Hash64): void { this.add2(h.hi, h.lo); }
  /** Add a hash given as its signed high and unsigned low 32-bit halves (no allocation). */
  add2(hi: number, lo: number): void {
    if (this.xor) { this.count++; this.hiSum ^= hi; this.loSum = (this.loSum ^ lo) >>> 0; return; }
    this.count++;
    this.hiSum += hi;
    this.loSum += lo;
    // keep the number accumulators exact (below 2^53): fold every 1M rows
    if (++this.pending >= 1_000_000) this.fold();
  }
  private fold(): void {
    this.big += (BigInt(this.hiSum) << 32n) + BigInt(this.loSum);
    this.hiSum = 0; this.loSum = 0; this.pending = 0;
  }
  /** The exact sum, as decimal text (what Postgres' sum(bigint)::text prints). */
  sum(): string {
    if (this.xor) return BigInt.asIntN(64, (BigInt(this.hiSum >>> 0) << 32n) | BigInt(this.loSum >>> 0)).toString();
    return (this.big + (BigInt(this.hiSum) << 32n) + BigInt(this.loSum)).toString();
  }
}

/** A bucket digest as exchanged between sides. */
export interface BucketDigest { count: number; sum: string }
