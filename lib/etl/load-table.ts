import fs from 'node:fs/promises';
import path from 'node:path';
import { isTransient, toError, AppError } from '../errors';
import type { Logger } from '../log';
import type { LateDeleteKeys } from '../lake';
import { lakeKeys, trackedColumns } from '../sources';
import { laterWatermark, writeControl, type ControlRecords, type UnitStatus, type Watermark } from './control';
import type { RunContext, TableState, Unit } from './run-types';
import { intKeyFileCache } from './int-key-files';

type LoadContext = Pick<RunContext, 'runId' | 'settings' | 'pool' | 'target' | 'log' | 'stagingRoot' | 'allBranches' | 'summary' | 'loadTime' | 'control'>;

/**
 * Load and record one table once all its units are extracted: one lake
 * commit for the units that succeeded (an INITIAL replaces the partitions of
 * the branches it read, the whole table when it read every one; an INCREMENTAL
 * merges on the unique key), then per unit the control
 * state (watermarks advance only after the commit), etl_control and a run
 * log row, and the units' results in the summary. After a merge, partitions
 * full of position deletes are compacted and old snapshots expired (their
 * failures are logged: the load stands). Throws when the commit failed,
 * after recording every unit as FAILED.
 *
 * A merge with nothing to write (every unit read no row and detected no
 * delete) touches no lake table: no commit, no metadata load, no compaction;
 * its units' records keep the control row's snapshot id and wait in the
 * phase's `control` batch (when given) to be written with other tables'.
 */
export async function loadTable(ctx: LoadContext, st: TableState): Promise<void> {
  const s = ctx.settings;
  const def = st.def;
  const runId = ctx.runId;
  const tlog = ctx.log.child({ table: def.lakeName });
  const extracted = st.units.filter((u) => u.status === 'SUCCESS');
  // units that read no row and still compare keys: their deletes are all there is to load, so wait for them
  if (extracted.every((u) => u.rows === 0 && u.files.every((f) => f.rows === 0))) await settleDeletes(extracted, tlog);
  const ok = st.units.filter((u) => u.status === 'SUCCESS');
  const bad = st.units.filter((u) => u.status !== 'SUCCESS');
  // comparisons still running are awaited once: by the merge, after its upserts, and before the records
  const late = ok.some((u) => u.deletesPending);
  const settled = settleDeletes(ok, tlog);
  // An INITIAL replaces what it read: the whole table when every branch was read, else only the
  // partitions of the branches that were (`--branch`, or a branch that failed: the others keep their
  // rows) — so a branch loaded again INITIAL keeps no row its source no longer has. A keyless (query)
  // entry has nothing to merge on: every run refreshes it so (read as an INITIAL reads it, render-unit.ts).
  const whole = ctx.allBranches && bad.length === 0;
  const replace = !def.uniqueKey.length || s.mode === 'INITIAL';
  let disposition: string | null = replace ? 'replace' : 'merge';
  let snapshotId: string | null = null;
  let loadError: string | null = null;
  // a no-op merge (nothing read, nothing deleted): the lake stays as it is
  const nothing = !replace && ok.every((u) => u.rows === 0 && u.files.every((f) => f.rows === 0) && !u.deleteKeys?.length);
  let committed = false;
  if (ok.length && nothing) {
    tlog.debug('nothing to load: no unit read a row', { branches: ok.map((u) => u.branch.key) });
    for (const u of ok) u.rowsDeleted = 0;
  } else if (ok.length) {
    const files = ok.flatMap((u) => u.files);
    committed = true;
    try {
      tlog.info('loading', { disposition, branches: ok.map((u) => u.branch.key), rows: ok.reduce((a, u) => a + u.rows, 0), files: files.length });
      // deletes: detect — each unit's deleted keys (+ its branch) go into the merge's commit; keys still
      // being compared are handed over as a promise the merge awaits after its upserts (lateDeletes)
      const keysOf = (u: Unit) => (u.deleteKeys ?? []).map((k): unknown[] => [...k, u.branch.key]);
      const delKeys = replace ? [] : ok.flatMap(keysOf);
      let requested = delKeys.length;
      const lateKeys = !replace && late ? settled.then(() => { const l = lateDeletes(ok.filter((u) => u.status === 'SUCCESS'), keysOf); requested = l.keys.length; return l; }) : undefined;
      const deletes = lateKeys || requested ? { keys: delKeys, late: lateKeys, softAt: def.deletes.soft ? ctx.loadTime : undefined } : undefined;
      const out = replace ? await ctx.target.replace(def.lakeName, files, whole ? undefined : ok.map((u) => u.branch.key)) : await ctx.target.merge(def.lakeName, files, st.schema ? lakeKeys(def, st.schema.fields.map((f) => f.name)) : def.uniqueKey, { groupMaxBytes: s.loadGroupMaxBytes, deletes, ...(def.deletes.mode === 'detect' ? { keyCache: intKeyFileCache } : {}) });
      for (const u of ok) u.rowsDeleted = out.deletedByBranch?.[u.branch.key] ?? 0;
      if (requested) tlog.info(def.deletes.soft ? 'soft-deleted rows' : 'deleted rows', { requested, rows: out.deletedByBranch });
      snapshotId = out.snapshotId;
      disposition = out.disposition === 'append' ? 'replace' : out.disposition;
    } catch (e) {
      loadError = `etl: load of ${def.lakeName} failed: ${toError(e).message}`;
      tlog.error('load failed', { error: loadError });
    }
  }
  const finishedAt = new Date();
  if (!ok.length) tlog.warn('table not loaded: no unit of it succeeded', { units: bad.map((u) => `${u.branch.key}: ${u.status}${u.error ? ` (${u.error})` : ''}`) });
  if ((loadError || !ok.length) && st.lakeColumns === null) {
    // the schema step created the table for this load: a failed first write leaves no empty table behind
    const dropped = await ctx.target.dropIfEmpty(def.lakeName).catch((e) => { tlog.warn('could not drop the empty table its failed first load left', { error: toError(e).message }); return false; });
    if (dropped) tlog.warn('dropped the table this run created: its first load wrote nothing', { reason: loadError ?? 'no unit succeeded' });
  }
  const recs: ControlRecords = { successes: [], failures: [], runLogs: [] };
  // a load that failed before its keys were awaited leaves no comparison running past the run
  await settled;
  for (const u of ok) {
    if (loadError) {
      u.status = 'FAILED'; u.fatal = true; u.error = loadError;
      recs.failures.push({ namespace: s.namespace, table: def.lakeName, branch: u.branch.key, runId, status: 'FAILED', error: loadError, startedAt: u.startedAt, finishedAt });
    } else if (u.status !== 'SUCCESS') {
      // its comparison failed (settleDeletes): no watermark advance, so the next run repeats both
      recs.failures.push({ namespace: s.namespace, table: def.lakeName, branch: u.branch.key, runId, status: u.status as UnitStatus, error: u.error ?? 'failed', startedAt: u.startedAt, finishedAt });
    } else {
      const tr = trackedColumns(def.spec);
      const old = s.mode === 'INCREMENTAL' ? u.watermark ?? { cdc: null, date: null } : { cdc: null, date: null };
      const wm: Watermark = {
        cdc: laterWatermark(old.cdc, tr.cdc ? u.stats?.max[tr.cdc]?.text ?? null : null),
        date: laterWatermark(old.date, tr.date ? u.stats?.max[tr.date]?.text ?? null : null),
      };
      u.watermark = wm;
      recs.successes.push({ namespace: s.namespace, table: def.lakeName, branch: u.branch.key, runId, mode: s.mode, watermark: wm, snapshotId, rows: u.rows, startedAt: u.startedAt, finishedAt });
    }
    recs.runLogs.push({
      runId, namespace: s.namespace, table: def.lakeName, branch: u.branch.key, mode: s.mode, category: def.category, status: u.status!, rows: loadError ? 0 : u.rows,
      startedAt: u.startedAt, finishedAt, attempts: u.attempts, writeDisposition: disposition, schemaDiscrepancy: st.drift.length ? st.drift : null, error: u.error,
      droppedDuplicates: loadError ? 0 : u.dropped ?? 0,
      rowsDeleted: loadError ? 0 : u.rowsDeleted ?? 0,
    });
  }
  for (const u of bad) {
    recs.failures.push({ namespace: s.namespace, table: def.lakeName, branch: u.branch.key, runId, status: u.status as UnitStatus, error: u.error ?? 'failed', startedAt: u.startedAt, finishedAt: u.finishedAt ?? finishedAt });
    recs.runLogs.push({
      runId, namespace: s.namespace, table: def.lakeName, branch: u.branch.key, mode: s.mode, category: def.category, status: u.status as UnitStatus, rows: 0,
      startedAt: u.startedAt, finishedAt: u.finishedAt ?? finishedAt, attempts: u.attempts, writeDisposition: ok.length ? disposition : null,
      schemaDiscrepancy: st.drift.length ? st.drift : null, error: u.error,
    });
  }
  // watermarks advance only now, after the commit; a table that committed writes at once
  if (ctx.control) await ctx.control.add(recs, { now: committed });
  else await writeControl(ctx.pool, recs);
  for (const u of st.units) {
    ctx.summary.units.push({ table: def.lakeName, branch: u.branch.key, phase: u.phase, status: u.status!, rows: u.status === 'SUCCESS' ? u.rows : 0,
      ...(u.def.deletes.mode === 'detect' ? { rowsDeleted: u.status === 'SUCCESS' ? u.rowsDeleted ?? 0 : 0 } : {}), attempts: u.attempts,
      writeDisposition: u.status === 'SUCCESS' ? disposition : null, error: u.error, watermark: u.watermark, ...(u.status === 'SUCCESS' && u.dropped ? { droppedDuplicates: u.dropped } : {}), sql: u.query?.sql, binds: u.query?.binds, ...(u.workerId ? { worker: u.workerId } : {}) });
  }
  if (!loadError && committed && disposition === 'merge' && s.compactDeletedRatio > 0) {
    const parts = await ctx.target.compact(def.lakeName, { deletedRatio: s.compactDeletedRatio, maxDeleteFiles: 16 })
      .catch((e) => { tlog.warn('compaction failed (the merge stands)', { error: toError(e).message }); return []; });
    if (parts.length) tlog.info('compacted partitions', { partitions: parts });
  }
  if (!loadError && committed && s.snapshotMaintenance) {
    await ctx.target.expire(def.lakeName, { maxAgeDays: s.snapshotExpireDays, minToKeep: s.snapshotMinToKeep }).catch((e) => tlog.warn('snapshot expiry failed', { error: toError(e).message }));
  }
  for (const u of st.units) u.staged?.release();
  if (!s.keepStaging) {
    await fs.rm(path.join(ctx.stagingRoot, runId, def.lakeName), { recursive: true, force: true })
      .catch((e) => tlog.warn('could not remove the table\'s staging (the run removes its folder at the end)', { error: toError(e).message }));
  }
  if (loadError) throw new AppError('fatal', loadError);
}

/**
 * Waits for the units' `deletes: detect` comparisons still running (Unit.deletesPending). One that
 * failed after its retries fails its unit: no watermark advance, so the next run extracts and
 * compares again. Rows it extracted may already be merged — the same rows, loaded again then.
 */
async function settleDeletes(units: Unit[], tlog: Logger): Promise<void> {
  for (const u of units) {
    const p = u.deletesPending;
    if (!p) continue;
    try { await p; } catch (e) {
      const err = toError(e);
      u.status = 'FAILED'; u.fatal = !isTransient(err); u.deleteKeys = undefined;
      u.error = `etl: ${u.def.lakeName} on branch ${u.branch.key}: deletes: detect failed: ${err.message}; the branch's deletes were not applied (the next run compares again)`;
      u.finishedAt = new Date();
      tlog.error('deletes: detect failed', { branch: u.branch.key, error: err.message });
    } finally { u.deletesPending = undefined; }
  }
}

/** The units' deleted keys for the merge, with the rows holding them when every unit read them at one snapshot. */
function lateDeletes(units: Unit[], keysOf: (u: Unit) => unknown[][]): LateDeleteKeys {
  const keys = units.flatMap(keysOf);
  const withKeys = units.filter((u) => u.deleteKeys?.length);
  const snap = withKeys[0]?.deletesAt?.snapshotId;
  const rowsKnown = snap !== undefined && withKeys.every((u) => u.deletesAt?.snapshotId === snap);
  return { keys, ...(rowsKnown ? { at: { snapshotId: snap, rows: withKeys.flatMap((u) => u.deletesAt!.rows) } } : {}) };
}
