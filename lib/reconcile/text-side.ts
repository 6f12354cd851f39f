import { oraCountSql, oraDigestSql, oraRowsForKeysSql, oraRowsSql } from './oracle-sql';
import { pgSide } from './pg-side';
import type { BucketDigest } from './row-hash';
import type { DqSide, SideRow } from './side';
import type { HashQuery } from './sql-common';

/** Runs one SQL text, every value returned as text (Oracle: upper-case column aliases). */
export type TextQuery = (sql: string) => Promise<Record<string, string | null>[]>;

/** An Oracle source as a comparison side over anything that runs SQL text (oracle-sql.ts renders it). */
export function oracleSide(run: (sql: string) => Promise<Record<string, unknown>[]>, q: HashQuery): DqSide {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  const toRows = (rs: Record<string, unknown>[]): SideRow[] => rs.map((r) => ({
    hash: String(r.RH), key: q.keys.map((_, i) => text(r[`K${i}`])), values: q.columns.map((_, i) => text(r[`V${i}`])),
  }));
  return {
    async count() { return Number((await run(oraCountSql(q.rel)))[0].N); },
    async digests(bits, within) {
      const out = new Map<number, BucketDigest>();
      for (const r of await run(oraDigestSql(q, bits, within))) out.set(Number(r.B), { count: Number(r.N), sum: String(r.S) });
      return out;
    },
    async rows(within) { return toRows(await run(oraRowsSql(q, within))); },
    async rowsForKeys(keys) { return keys.length ? toRows(await run(oraRowsForKeysSql(q, keys))) : []; },
  };
}

/**
 * A source side over a SQL-text runner (the ETL reader's `textQuery`): the
 * reconciler's digest and row queries, for comparing key sets where no
 * reconciler connection is open. Digests and bucket rows only: the re-check by
 * key (bind parameters) is the reconciler's own connection's.
 */
export function textSide(dialect: 'postgres' | 'oracle', run: TextQuery, q: HashQuery): DqSide {
  if (dialect === 'oracle') return oracleSide(run, q);
  return pgSide({
    query: (async (cfg: { text: string; values?: unknown[] }) => {
      if (cfg.values?.length) throw new Error('dq: a text-query side takes no bind parameters');
      return { rows: await run(cfg.text) };
    }) as never,
  }, q);
}
