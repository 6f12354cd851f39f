import type { CanonKind } from './canonical';

/** One column of a comparison as a SQL renderer sees it. */
export interface SqlColumn {
  /** Column name as the source spells it (quoted by the renderer). */
  name: string;
  /** The source's type as the catalog spells it (`numeric(18,2)`, `NUMBER(10,2)`, `timestamp with time zone`). */
  sourceType: string;
  /** Compare by double value (a float on either side). */
  asFloat: boolean;
}

/** The row set one side reads: its FROM clause and window predicate, rendered by `window.ts`. */
export interface SqlRelation {
  /** `schema.table t` or `(subquery) t` plus any helper join; the child's alias is always `t`. */
  from: string;
  /** A predicate over `t` / `h`, or '' for no window. */
  where: string;
}

/** Bucket depth filter: only rows whose key-hash prefix at `bits` is one of `prefixes`. */
export interface PrefixFilter { bits: number; prefixes: number[] }

/** What a digest or rows query covers. */
export interface HashQuery {
  rel: SqlRelation;
  /** Unique-key columns, in unique_key order. */
  keys: SqlColumn[];
  /** Hashed columns, in the comparison's column order (sorted names). */
  columns: SqlColumn[];
  /**
   * How keys map to buckets: `md5` of the canonical key text (any key), or
   * `int32` — a multiplicative mix of the low 32 bits of a single integer key,
   * the same bucket spread for a fraction of the cost. (Default: md5)
   */
  keyHash?: KeyHashKind;
  /**
   * How a bucket's row hashes combine: `sum` (exact 128-bit sum; any engine) or
   * `xor` (bit_xor, Postgres 14+: cheaper; duplicates still change the count). (Default: sum)
   */
  digest?: DigestKind;
}

export type DigestKind = 'sum' | 'xor';

export type KeyHashKind = 'md5' | 'int32';

/** The int32 key mix's multiplier (odd, < 2^31 so the product fits a signed 64-bit integer in SQL). */
export const KEY_MIX = 1640531527;

export type { CanonKind };
