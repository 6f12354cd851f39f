import type pg from 'pg';
import type { SourceDb } from './source';
import { getRun, getSlices, type SliceRow } from './state';
import { AppError } from '../../errors';

/**
 * Oracle flashback: `AS OF SCN n` after every table reference of FROM/JOIN
 * (before its alias), so the count is anchored at the load's watermark.
 * Subqueries (`FROM (`) are left alone; their own FROMs are rewritten.
 */
export function withAsOfScn(sql: string, scn: string): string {
  if (!/^\d+$/.test(scn)) throw new AppError('validation', `slices: an Oracle SCN must be digits, got '${scn}'`);
  return sql.replace(/\b(FROM|JOIN)(\s+)((?:"[^"]+"|[A-Za-z_][\w$#]*)(?:\.(?:"[^"]+"|[A-Za-z_][\w$#]*))?)(?!\s*\()/gi,
    (_m, kw: string, ws: string, table: string) => `${kw}${ws}${table} AS OF SCN ${scn}`);
}

/** Source-side COUNT(*) of one slice: anchored (`AS OF SCN`) on Oracle, live on Postgres. */
export function sourceCountSql(query: string, engine: 'oracle' | 'postgres', watermark: string | null): string {
  if (engine === 'oracle') return `SELECT COUNT(*) AS "N" FROM (${watermark ? withAsOfScn(query, watermark) : query}) q`;
  return `SELECT COUNT(*) AS "N" FROM (${query}) q`;
}

/** `FROM owner.table alias WHERE cond` of a simple single-table slice query. */
export function parseSimpleSlice(query: string): { table: string; alias: string | null; where: string | null } | null {
  if (/\bjoin\b/i.test(query)) return null;
  const m = /\bfrom\s+([A-Za-z_][\w$#]*(?:\.[A-Za-z_][\w$#]*)?)(?:\s+(?:as\s+)?(?!where\b)([A-Za-z_][\w$#]*))?\s*(?:where\s+([\s\S]+))?$/i.exec(query.trim());
  if (!m) return null;
  return { table: m[1], alias: m[2] ?? null, where: m[3]?.trim() ?? null };
}

/**
 * Target-side COUNT(*) of one slice: the slice predicate evaluated on the
 * target table under the driving table's alias. Null when the predicate is
 * physical (ROWID/ctid: meaningless on the target) or unknown.
 */
export function targetCountSql(slice: Pick<SliceRow, 'query' | 'targettbl' | 'slice_predicate'>): { sql: string | null; note: string | null } {
  const parsed = parseSimpleSlice(slice.query);
  const pred = slice.slice_predicate ?? parsed?.where ?? null;
  if (!pred) return { sql: null, note: 'no slice predicate known: compare totals' };
  if (/\b(rowid|ctid)\b/i.test(pred)) return { sql: null, note: 'physical (ROWID/ctid) predicate: compare totals' };
  // The driving table's alias: from a simple query, else the predicate's qualifier (`s.col >= …`).
  const aliasInQuery = parsed?.alias ?? (parsed ? null : /^\s*\(?\s*([A-Za-z_][\w$#]*)\.[A-Za-z_"]/.exec(pred)?.[1] ?? null);
  let where = pred;
  let alias = aliasInQuery ?? '';
  if (!aliasInQuery && parsed) {
    // Unaliased: qualified references name the source table; point them at the target.
    const short = parsed.table.split('.').pop()!;
    where = where.split(`${parsed.table}.`).join('t.').replace(new RegExp(`\\b${short}\\.`, 'g'), 't.');
    alias = 't';
  }
  return { sql: `SELECT COUNT(*) AS "N" FROM ${slice.targettbl}${alias ? ' ' + alias : ''} WHERE ${where}`, note: null };
}

export interface ReconcileSlice {
  slice: number;
  status: string;
  target: string;
  sourceSql: string;
  sourceCount: number | null;
  targetSql: string | null;
  targetCount: number | null;
  delta: number | null;
  note: string | null;
}

export interface ReconcileReport {
  runId: number;
  engine: 'oracle' | 'postgres';
  anchoredAt: string | null;
  anchored: boolean;
  slices: ReconcileSlice[];
  targets: { table: string; sourceSum: number | null; targetCount: number | null; delta: number | null; sql: string }[];
  total: { source: number | null; target: number | null; delta: number | null };
}

/** A target that can be counted: Postgres (SQL) or the lake (a count function). */
export type ReconcileTarget =
  | { kind: 'postgres'; pool: pg.Pool }
  | { kind: 'lake'; count(table: string): Promise<number>; countSlices?(table: string, predicates: (string | null)[]): Promise<{ counts: (number | null)[]; note: string | null }> }
  | null;

/** The lake as a reconcile target: totals, and per-slice counts by key range. */
export function lakeTarget(counter: ((table: string) => Promise<number>) & { countSlices?: NonNullable<Extract<ReconcileTarget, { kind: 'lake' }>['countSlices']> }): ReconcileTarget {
  return { kind: 'lake', count: counter, countSlices: counter.countSlices };
}

/**
 * `reconcile`: per slice, COUNT(*) on the source over the stored slice (AS OF
 * SCN <watermark> on Oracle, live on Postgres) and, when the target is
 * reachable, the target-side count over the same predicate; per-slice and
 * total deltas. Without a source/target the SQL is still emitted.
 */
export async function reconcileRun(pool: pg.Pool, runId: number, opts: { source: SourceDb | null; engine?: 'oracle' | 'postgres'; target?: ReconcileTarget }): Promise<ReconcileReport> {
  const run = await getRun(pool, runId);
  if (!run) throw new AppError('not_found', `slices: run ${runId} not found`);
  const engine = opts.source?.engine ?? opts.engine ?? ((run.source_engine as 'oracle' | 'postgres' | null) ?? 'postgres');
  const slices = await getSlices(pool, runId, { generation: run.generation });
  const tgt = opts.target ?? null;
  // Only an Oracle SCN anchors a count (AS OF SCN); a PostgreSQL LSN cannot, so Postgres counts are live.
  const wm = engine === 'oracle' && run.watermark_value && /^\d+$/.test(run.watermark_value) ? run.watermark_value : null;
  const out: ReconcileSlice[] = [];
  for (const sl of slices) {
    const sourceSql = sourceCountSql(sl.query, engine, wm);
    let sourceCount: number | null = null;
    let note: string | null = null;
    if (opts.source) {
      try { sourceCount = Number((await opts.source.query(sourceSql))[0]?.N); } catch (e) {
        note = /ORA-01555|ORA-08181|snapshot too old/i.test((e as Error).message) ? `snapshot too old: ${(e as Error).message}` : (e as Error).message;
      }
    }
    const t = targetCountSql(sl);
    let targetCount: number | null = null;
    if (t.sql && tgt?.kind === 'postgres') {
      try { targetCount = Number((await tgt.pool.query(t.sql)).rows[0]?.N); } catch (e) { note = `target: ${(e as Error).message}`; }
    }
    out.push({ slice: sl.roworder, status: sl.status, target: sl.targettbl, sourceSql, sourceCount, targetSql: t.sql, targetCount,
      delta: sourceCount !== null && targetCount !== null ? sourceCount - targetCount : null, note: note ?? t.note });
  }
  if (tgt?.kind === 'lake' && tgt.countSlices) {
    // The lake has no SQL: its rows are counted per slice by the slices' key ranges, one scan per table.
    for (const table of [...new Set(slices.map((s) => s.targettbl))]) {
      const own = slices.map((sl, i) => ({ sl, i })).filter((x) => x.sl.targettbl === table);
      const r = await tgt.countSlices(table, own.map((x) => x.sl.slice_predicate ?? parseSimpleSlice(x.sl.query)?.where ?? null))
        .catch((e) => ({ counts: own.map(() => null), note: `target: ${(e as Error).message}` }));
      own.forEach((x, k) => {
        const o = out[x.i];
        o.targetCount = r.counts[k];
        o.targetSql = null;
        o.delta = o.sourceCount !== null && o.targetCount !== null ? o.sourceCount - o.targetCount : null;
        o.note = o.note && o.note !== targetCountSql(x.sl).note ? o.note : r.note;
      });
    }
  }
  const targets: ReconcileReport['targets'] = [];
  for (const table of [...new Set(slices.map((s) => s.targettbl))]) {
    const own = out.filter((x) => x.target === table);
    const sourceSum = own.every((x) => x.sourceCount !== null) ? own.reduce((a, x) => a + x.sourceCount!, 0) : null;
    const sql = `SELECT COUNT(*) AS "N" FROM ${table}`;
    let targetCount: number | null = null;
    if (tgt?.kind === 'postgres') targetCount = Number((await tgt.pool.query(sql)).rows[0]?.N);
    else if (tgt?.kind === 'lake') targetCount = await tgt.count(table);
    targets.push({ table, sourceSum, targetCount, delta: sourceSum !== null && targetCount !== null ? sourceSum - targetCount : null, sql });
  }
  const src = targets.every((x) => x.sourceSum !== null) ? targets.reduce((a, x) => a + x.sourceSum!, 0) : null;
  const tg = targets.every((x) => x.targetCount !== null) ? targets.reduce((a, x) => a + x.targetCount!, 0) : null;
  return {
    runId, engine, anchoredAt: wm, anchored: engine === 'oracle' && !!wm, slices: out, targets,
    total: { source: src, target: tg, delta: src !== null && tg !== null ? src - tg : null },
  };
}
