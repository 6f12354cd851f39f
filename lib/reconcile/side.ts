import type { BucketDigest } from './row-hash';
import type { PrefixFilter } from './sql-common';

/** One row of a bucket, as a side returns it for the row-level comparison. */
export interface SideRow {
  /** Canonical key values, in unique_key order. */
  key: (string | null)[];
  /** Signed 64-bit row hash as decimal text. */
  hash: string;
  /** Canonical values of the compared columns, in the comparison's column order. */
  values: (string | null)[];
}

/**
 * One side of a comparison (the source database, the lake at a snapshot, or
 * staged Parquet): the same window, columns and canonical form on both, so
 * equal rows give equal hashes and equal buckets equal digests.
 */
export interface DqSide {
  /** Windowed row count (the count check when hashing is off). */
  count(): Promise<number>;
  /** Digests of the non-empty key-hash buckets at depth `bits`, optionally only inside `within`. */
  digests(bits: number, within?: PrefixFilter): Promise<Map<number, BucketDigest>>;
  /** Every row of the buckets in `within`. */
  rows(within: PrefixFilter): Promise<SideRow[]>;
  /** The rows with these canonical keys (re-check after repair). */
  rowsForKeys(keys: (string | null)[][]): Promise<SideRow[]>;
}
