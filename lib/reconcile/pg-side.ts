import type pg from 'pg';
import type { BucketDigest } from './row-hash';
import type { DqSide, SideRow } from './side';
import type { HashQuery } from './sql-common';
import { pgCountSql, pgDigestSql, pgRowsForKeysSql, pgRowsSql } from './pg-sql';

/** Anything that runs a query: a pg.Client, a pool client, a pool. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

const RAW = { getTypeParser: () => (x: string) => x };

function toRows(q: HashQuery, rows: Record<string, string | null>[]): SideRow[] {
  return rows.map((r) => ({
    hash: r.rh as string,
    key: q.keys.map((_, i) => r[`k${i}`]),
    values: q.columns.map((_, i) => r[`v${i}`]),
  }));
}

/**
 * A Postgres source branch as a comparison side: digests, counts and row hashes
 * computed by the database (pg-sql.ts), so a clean table moves a few hundred
 * digest rows, not its data.
 */
export function pgSide(db: Queryable, q: HashQuery): DqSide {
  return {
    async count() {
      const r = await db.query({ text: pgCountSql(q.rel), types: RAW });
      return Number(r.rows[0].n);
    },
    async digests(bits, within) {
      const r = await db.query({ text: pgDigestSql(q, bits, within), types: RAW });
      const out = new Map<number, BucketDigest>();
      for (const row of r.rows) out.set(Number(row.b), { count: Number(row.n), sum: row.s });
      return out;
    },
    async rows(within) {
      const r = await db.query({ text: pgRowsSql(q, within), types: RAW });
      return toRows(q, r.rows);
    },
    async rowsForKeys(keys) {
      const out: SideRow[] = [];
      for (let i = 0; i < keys.length; i += 1000) {
        const { text, values } = pgRowsForKeysSql(q, keys.slice(i, i + 1000));
        const r = await db.query({ text, values, types: RAW });
        out.push(...toRows(q, r.rows));
      }
      return out;
    },
  };
}
