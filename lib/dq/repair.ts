import type { LakeTable } from '../lake';
import type { Logger } from '../log';
import { lakeKeys, targetFields, wallClockMicros, type ReadStats, type ReadTarget } from '../sources';
import { BRANCH_ID, INSERT_AT, RECORDED_UPDATED_AT } from '../config/lake-columns';
import type { TableDef } from '../config/tables-json';
import { diffRowSets, type HashDiff, type KeyValues } from '../reconcile/compare';
import { oraCanonicalExpr, oraIdent } from '../reconcile/oracle-sql';
import { pgCanonicalExpr, pgIdent } from '../reconcile/pg-sql';
import { lakeSideOf, type UnitPlan } from './plan';
import type { DqSource } from './source';

export interface RepairOutcome {
  /** REPAIRED: every difference fixed and re-checked; PARTIAL: some remain; FAILED: the repair threw. */
  status: 'REPAIRED' | 'PARTIAL' | 'FAILED';
  /** Differences remain after the repair (the unit stays MISMATCH). */
  remaining: boolean;
  requested?: { merge: number; delete: number };
  merged?: { rows: number; inserted: number; updated: number };
  deleted?: number;
  snapshot_id?: string | null;
  recheck?: { keys: number; matched: number; only_in_source: number; only_in_lake: number; hash_mismatch: number };
  note?: string;
  error?: string;
}

/** `(canonical key exprs) IN ((…), …)` over `t` with the keys as quoted literals. */
export function keyPredicate(dialect: 'postgres' | 'oracle', plan: UnitPlan, keys: KeyValues[]): string {
  const lit = (v: string | null) => (v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`);
  const exprs = plan.query.keys.map((c) => (dialect === 'postgres' ? pgCanonicalExpr(`t.${pgIdent(c.name)}`, c) : oraCanonicalExpr(`t.${oraIdent(c.name)}`, c)));
  const tuple = exprs.length === 1 ? exprs[0] : `(${exprs.join(', ')})`;
  const chunks: string[] = [];
  for (let i = 0; i < keys.length; i += 1000) {
    chunks.push(`${tuple} IN (${keys.slice(i, i + 1000).map((k) => (k.length === 1 ? lit(k[0]) : `(${k.map(lit).join(', ')})`)).join(', ')})`);
  }
  return chunks.length ? chunks.map((c) => `(${c})`).join(' OR ') : '1 = 0';
}

/**
 * Repair one unit: re-extract the keys found only in the source or mismatched
 * through the ETL engine's reader of the branch (same type conversion and
 * injected BRANCH_ID / insert_at / Recorded_updated_at as a load), merge them
 * on the table key + BRANCH_ID with insert_at carried forward (the ETL's merge
 * call), delete keys only in the lake when asked, then re-check those keys on
 * both sides at the new snapshot.
 */
export async function repairUnit(a: {
  src: DqSource; table: LakeTable; def: TableDef; branch: string; plan: UnitPlan; diff: HashDiff; deletes: boolean;
  logger: Logger; signal?: AbortSignal; now?: () => Date;
}): Promise<RepairOutcome> {
  const { src, table, def, branch, plan, diff } = a;
  const toMerge = [...diff.keys.onlyInSource, ...diff.keys.mismatch];
  const toDelete = a.deletes ? diff.keys.onlyInLake : [];
  const out: RepairOutcome = { status: 'REPAIRED', remaining: false, requested: { merge: toMerge.length, delete: toDelete.length } };
  if (toMerge.length) {
    const sql = `SELECT t.* FROM ${plan.query.rel.from} WHERE ${keyPredicate(src.dialect, plan, toMerge)}`;
    const reader = src.reader();
    const q = { sql, binds: [] };
    const columns = await reader.describe(q, a.signal);
    const schema = table.arrowSchema();
    const loadTime = wallClockMicros((a.now ?? (() => new Date()))());
    const target: ReadTarget = {
      // lake columns named by the table's convention are filled from their source columns (tables.json naming)
      schema, fields: targetFields(def, schema, columns),
      constants: {
        [BRANCH_ID]: { type: { kind: 'string' }, value: branch },
        [INSERT_AT]: { type: { kind: 'timestamp' }, value: loadTime },
        [RECORDED_UPDATED_AT]: { type: { kind: 'timestamp' }, value: loadTime },
      },
      track: [],
    };
    const stats: ReadStats = { rows: 0, max: {} };
    const r = await table.merge(reader.read(q, columns, target, { batchSize: 10_000, signal: a.signal, stats }), {
      keys: [...lakeKeys(def, schema.fields.map((f) => f.name)), BRANCH_ID], carryForward: [INSERT_AT],
    });
    out.merged = { rows: stats.rows, inserted: r.inserted, updated: r.updated };
    a.logger.info('repair merged', { rows: stats.rows, inserted: r.inserted, updated: r.updated });
  }
  if (toDelete.length) {
    const r = await table.deleteWhere({ partition: { [BRANCH_ID]: branch }, keys: { columns: plan.keyNames.map((k) => plan.lakeKeys[plan.keyNames.indexOf(k)].name), values: toDelete } });
    out.deleted = r.deleted;
    a.logger.info('repair deleted', { rows: r.deleted });
  }
  await table.refresh();
  const snap = table.currentSnapshotId();
  out.snapshot_id = snap === null ? null : String(snap);
  const keys = [...toMerge, ...toDelete];
  const [sr, lr] = await Promise.all([src.side(plan.query).rowsForKeys(keys), lakeSideOf(table, branch, snap, plan, a.signal).rowsForKeys(keys)]);
  const re = diffRowSets(sr, lr, { columnNames: plan.columnNames, keyNames: plan.keyNames });
  out.recheck = { keys: keys.length, matched: re.matched, only_in_source: re.onlyInSource, only_in_lake: re.onlyInLake, hash_mismatch: re.mismatch };
  // a repair that could not finish says why: which step fell short and what the re-check still sees
  const notes: string[] = [];
  if (!diff.keys.complete) notes.push('more differing keys than were collected: run the check again');
  if (out.merged && out.merged.rows < toMerge.length) {
    notes.push(`${toMerge.length - out.merged.rows} of ${toMerge.length} key(s) to merge were not found again at the source (changed or deleted since the check?)`);
  }
  if (toDelete.length && (out.deleted ?? 0) < toDelete.length) {
    notes.push(`${toDelete.length - (out.deleted ?? 0)} of ${toDelete.length} key(s) to delete matched no live lake row`);
  }
  if (re.onlyInSource + re.onlyInLake + re.mismatch > 0) {
    notes.push(`re-check after the repair: ${re.onlyInSource} only in the source, ${re.onlyInLake} only in the lake, ${re.mismatch} different`);
  }
  if (diff.onlyInLake > 0 && !a.deletes) notes.push(`${diff.onlyInLake} key(s) only in the lake kept (pass --repair-deletes to delete them)`);
  out.remaining = re.onlyInSource + re.onlyInLake + re.mismatch > 0 || notes.length > 0;
  if (notes.length) out.note = notes.join('; ');
  out.status = out.remaining ? 'PARTIAL' : 'REPAIRED';
  if (out.remaining) a.logger.warn('repair could not finish', { status: out.status, reason: out.note, requested: out.requested, merged: out.merged, deleted: out.deleted });
  return out;
}
