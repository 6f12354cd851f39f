import fs from 'node:fs/promises';
import path from 'node:path';
import { BRANCH_ID, INSERT_AT, RECORDED_UPDATED_AT } from '../config/lake-columns';
import { AppError, isTransient, toError, withRetry } from '../errors';
import type { Logger } from '../log';
import { lakeKeys, matchName, targetFields, trackedColumns, type ReadStats, type ReadTarget } from '../sources';
import { describedUnitProblem } from './plan-checks';
import { detectDeletes } from './detect-deletes';
import { renderUnit, unitMode } from './render-unit';
import type { RunContext, TableState, Unit } from './run-types';
import { dataColumns, describeUnit, widenTable } from './schema-step';
import { exactDuplicates, KeyTracker, olderRows, withoutRows } from './key-check';
import { StagingWriter, stagedBatches } from './staging';

type ExtractContext = Pick<RunContext, 'runId' | 'settings' | 'target' | 'log' | 'signal' | 'plan' | 'summary' | 'stagingRoot' | 'loadTime' | 'encoder' | 'hold' | 'lateDeletes'>;

/** An error marked `fatal` (a reserved column, a bad schema) is never retried, whatever its cause says. */
// The seeds' rule: an AppError other than transient/unavailable (bad keys, a reserved column) is never retried.
const retryable = isTransient;

/**
 * Extract one unit to staged Parquet with retry: transient errors (the
 * seeds' rule, `isTransient`) are retried `retries` times `retryDelayMs`
 * apart, anything else fails the unit at once. The outcome lands on the
 * unit: SUCCESS with its files, rows and watermark maxima, or FAILED with
 * the error (`fatal` when it was not transient). Only an abort throws.
 */
export async function extractUnit(ctx: ExtractContext, u: Unit, st: TableState): Promise<void> {
  const s = ctx.settings;
  const ulog = ctx.log.child({ table: u.def.lakeName, branch: u.branch.key });
  u.startedAt = new Date();
  try {
    await withRetry(() => extractOnce(ctx, u, st, ulog), {
      retries: s.retries, delayMs: s.retryDelayMs, signal: ctx.signal, retryable,
      onRetry: (err, i) => ulog.warn('transient error, retrying', { attempt: i.attempt, of: i.attempts, delayMs: i.delayMs, error: err.message }),
    });
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    const err = toError(e);
    const transient = retryable(err);
    u.status = 'FAILED';
    u.fatal = !transient;
    // a source's own error (`relation "shop.order" does not exist`) says which entry and branch it came from
    u.error = err.message.startsWith('etl:') ? err.message : `etl: tables.json entry '${u.def.lakeName}' (${u.def.source}) on branch ${u.branch.key}: ${err.message}${foldHint(u, err.message)}`;
    u.finishedAt = new Date();
    ulog.error(transient ? 'failed after retries' : 'failed (not retried)', { attempts: u.attempts, error: err.message });
  }
}

/** PostgreSQL folds an unquoted name to lower case: a mixed-case table it cannot find was perhaps created quoted. */
function foldHint(u: Unit, message: string): string {
  const m = /relation "([^"]+)" does not exist/.exec(message);
  if (!m || u.branch.source.dialect !== 'postgres' || m[1] === u.def.source || !/[a-z]/.test(u.def.source) || !/[A-Z]/.test(u.def.source)) return '';
  return ` (PostgreSQL folds the unquoted ${u.def.source} to ${m[1]}: a table created quoted in mixed case is read through a subquery entry, "table": "(SELECT * FROM ${u.def.source.split('.').map((x) => `\\"${x}\\"`).join('.')})", "name": "…")`;
}

/** One attempt: (re)describe when needed, widen the table when the unit brings new columns, stream the rows into staging. */
async function extractOnce(ctx: ExtractContext, u: Unit, st: TableState, ulog: Logger): Promise<void> {
  const s = ctx.settings;
  u.attempts++;
  let writer: StagingWriter | null = null;
  try {
    ctx.signal?.throwIfAborted();
    if (!u.columns || u.attempts > 1 && u.describeError) {
      u.columns = await describeUnit(ctx, u);
      u.describeError = undefined;
      const why = describedUnitProblem(u.def, u.columns);
      if (why) throw new AppError('validation', why);
    }
    if (!st.schema || !dataColumns(u.columns, u.def).every((c) => matchName(st.schema!.fields.map((f) => f.name), c.name))) await widenTable(ctx, st, [u]);
    const q = renderUnit(u, s.mode);
    u.query = q;
    const fields = targetFields(u.def, st.schema!, u.columns);
    const tr = trackedColumns(u.def.spec);
    const target: ReadTarget = {
      schema: st.schema!, fields,
      constants: {
        [BRANCH_ID]: { type: { kind: 'string' }, value: u.branch.key },
        [INSERT_AT]: { type: { kind: 'timestamp' }, value: ctx.loadTime },
        [RECORDED_UPDATED_AT]: { type: { kind: 'timestamp' }, value: ctx.loadTime },
      },
      track: [tr.cdc, tr.date].filter((x): x is string => !!x),
    };
    const stats: ReadStats = { rows: 0, max: {} };
    // a keyless entry's rows always go to files: its replace adopts them (rows held in memory only merge)
    const hold = u.def.uniqueKey.length ? ctx.hold : undefined;
    writer = new StagingWriter(path.join(ctx.stagingRoot, ctx.runId, u.def.lakeName, u.branch.key, u.stagingSub ?? ''), ctx.encoder!, { rowsPerFile: s.stagingRowsPerFile, hold });
    await writer.init();
    ulog.info('extracting', { attempt: u.attempts, sql: q.sql, binds: q.binds.map((b) => b.value) });
    const keys = u.def.uniqueKey.length ? KeyTracker.forSchema(st.schema!, lakeKeys(u.def, st.schema!.fields.map((f) => f.name)), `${u.def.lakeName} on branch ${u.branch.key}`) : null;
    // required columns (the key and BRANCH_ID of a table created with identifier fields) must hold no NULL
    const required = st.schema!.fields.flatMap((f, i) => (f.nullable ? [] : [i]));
    for await (const b of u.branch.source.read(q, u.columns, target, { batchSize: u.branch.fetchBatchSize ?? s.fetchBatchSize, signal: ctx.signal, stats })) {
      for (const i of required) {
        const n = b.data.children[i].nullCount;
        if (n > 0) throw new AppError('validation', `etl: ${u.def.lakeName} on branch ${u.branch.key}: key column ${st.schema!.fields[i].name} has ${n} NULL value(s); a unique_key column must not be NULL`);
      }
      keys?.add(b);
      await writer.add(b);
    }
    u.files = await writer.finish();
    u.staged = writer;
    u.rows = stats.rows;
    u.dropped = 0;
    if (keys?.suspects.size) await settleDuplicates(ctx, u, st, keys, ulog);
    u.stats = stats;
    if (s.mode === 'INCREMENTAL' && u.def.deletes.mode === 'detect') {
      // after the extract: a row inserted since is only in the source (ignored), one deleted since is a delete
      if (ctx.lateDeletes) {
        // the unit is done; its table's load starts without waiting and takes the keys at its commit (lateDeletes)
        u.deletesPending = withRetry(() => detectUnitDeletes(ctx, u, st, ulog), {
          retries: s.retries, delayMs: s.retryDelayMs, signal: ctx.signal, retryable,
          onRetry: (err, i) => ulog.warn('deletes: detect: transient error, retrying', { attempt: i.attempt, of: i.attempts, delayMs: i.delayMs, error: err.message }),
        });
        u.deletesPending.catch(() => {}); // the load awaits it
      } else await detectUnitDeletes(ctx, u, st, ulog);
    }
    u.status = 'SUCCESS';
    u.finishedAt = new Date();
    if (u.rows === 0) ulog.warn('extracted no rows: nothing to load for this unit', { reason: noRowsReason(u, unitMode(u.def, s.mode)) });
    ulog.info('extracted', { rows: u.rows, files: u.files.length, attempts: u.attempts, ...(u.dropped ? { droppedDuplicates: u.dropped } : {}) });
  } catch (e) {
    // the attempt's error decides the retry; a failed clean-up only leaves files the run's final rm removes
    await writer?.discard().catch((d) => ulog.warn('could not discard the failed attempt\'s staging', { error: toError(d).message }));
    throw e;
  }
}

/** Why a unit read nothing, for its warning. */
function noRowsReason(u: Unit, mode: string): string {
  if (mode === 'INCREMENTAL') return `no row changed at the source since the watermark (cdc ${u.watermark?.cdc ?? 'none'}, date ${u.watermark?.date ?? 'none'})`;
  return u.def.spec.initial ? `the source has no row with ${u.def.spec.helper?.dateColumn ?? u.def.spec.dateColumn} ${u.def.spec.initial.operator} ${u.def.spec.initial.value}` : 'the source table is empty';
}

/**
 * The extract has rows sharing a unique_key (suspected while streaming, confirmed
 * here on the exact values). Without `dedupe: latest` the unit fails naming them and
 * nothing of it is committed; with it, the older rows of each key (by the CDC column)
 * are dropped from the staged files and counted.
 */
async function settleDuplicates(ctx: ExtractContext, u: Unit, st: TableState, keys: KeyTracker, ulog: Logger): Promise<void> {
  const def = u.def;
  const latest = def.entry.dedupe === 'latest';
  const names = st.schema!.fields.map((f) => f.name);
  // the CDC column as the lake spells it (the table's naming, or an older spelling matched without regard to case)
  const cdcName = latest && def.spec.cdcColumn ? lakeKeys({ naming: def.naming, uniqueKey: [def.spec.cdcColumn] }, names)[0] : null;
  const cdcIdx = cdcName ? names.indexOf(cdcName) : -1;
  const read = (f: number) => stagedBatches(u.files[f]);
  const dups = await exactDuplicates(u.files.length, read, keys, cdcIdx >= 0 ? cdcIdx : null);
  if (!dups.length) return;
  const extra = dups.reduce((a, g) => a + g.rows.length - 1, 0);
  const first = dups.slice(0, 5).map((g) => `(${g.key})`).join(', ');
  const keyNames = keys.keyIdx.map((i) => st.schema!.fields[i].name).join(', ');
  if (!latest) {
    throw new AppError('validation', `etl: ${def.lakeName} on branch ${u.branch.key}: ${dups.length} unique_key value${dups.length === 1 ? '' : 's'} of (${keyNames}) occur more than once in the extract `
      + `(${extra} extra row${extra === 1 ? '' : 's'}), first: ${first}${dups.length > 5 ? ', …' : ''}; nothing of this unit was committed. `
      + `Declare the full key in tables.json, or set "dedupe": "latest" to keep the newest row of each key by its cdc_column`);
  }
  const emptied = new Set<number>();
  for (const [f, drop] of olderRows(dups)) {
    const file = u.files[f];
    const kept = withoutRows(await read(f), drop);
    const rows = kept.reduce((a, b) => a + b.numRows, 0);
    if (file.batches) { file.batches = kept; file.rows = rows; continue; }
    if (!rows) { emptied.add(f); await fs.rm(file.path, { force: true }); continue; }
    const tmp = `${file.path}.dedupe`;
    file.bytes = await ctx.encoder!.write(tmp, kept);
    await fs.rename(tmp, file.path);
    file.rows = rows;
  }
  if (emptied.size) u.files = u.files.filter((_, i) => !emptied.has(i));
  u.rows -= extra;
  u.dropped = extra;
  ulog.warn('dropped older rows of duplicated keys (dedupe: latest)', { dropped: extra, keys: dups.length, first });
}

/** `deletes: detect` for one extracted unit: the keys its branch no longer has land on `u.deleteKeys`. */
async function detectUnitDeletes(ctx: ExtractContext, u: Unit, st: TableState, ulog: Logger): Promise<void> {
  const t = Date.now();
  const d = await detectDeletes({ target: ctx.target, schema: st.schema!, log: ulog, signal: ctx.signal }, u);
  u.deleteKeys = d.keys;
  u.deletesAt = d.at;
  // the keys compared: on the integer road the source's within the lake's key range (a newer key is a new row, not looked at)
  ulog.info('deletes detected', { keys: d.keys.length, sourceKeysCompared: d.sourceKeys, lakeKeysCompared: d.lakeKeys, ms: Date.now() - t });
  if (!d.complete) ulog.warn('more deleted keys than one pass collects: the rest are deleted by the next run', { collected: d.keys.length });
}
