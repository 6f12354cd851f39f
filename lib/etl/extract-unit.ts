import path from 'node:path';
import { BRANCH_ID, INSERT_AT, RECORDED_UPDATED_AT } from '../config/lake-columns';
import { isTransient, toError, withRetry } from '../errors';
import type { Logger } from '../log';
import { matchName, targetFields, trackedColumns, type ReadStats, type ReadTarget } from '../sources';
import { renderUnit } from './render-unit';
import type { RunContext, TableState, Unit } from './run-types';
import { dataColumns, describeUnit, widenTable } from './schema-step';
import { StagingWriter } from './staging';

type ExtractContext = Pick<RunContext, 'runId' | 'settings' | 'target' | 'log' | 'signal' | 'plan' | 'summary' | 'stagingRoot' | 'loadTime' | 'encoder' | 'hold'>;

/** An error marked `fatal` (a reserved column, a bad schema) is never retried, whatever its cause says. */
const retryable = (e: Error) => !(e as { fatal?: boolean }).fatal && isTransient(e);

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
    u.error = err.message;
    u.finishedAt = new Date();
    ulog.error(transient ? 'failed after retries' : 'failed (not retried)', { attempts: u.attempts, error: err.message });
  }
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
    writer = new StagingWriter(path.join(ctx.stagingRoot, ctx.runId, u.def.lakeName, u.branch.key, u.stagingSub ?? ''), ctx.encoder!, { rowsPerFile: s.stagingRowsPerFile, hold: ctx.hold });
    await writer.init();
    ulog.info('extracting', { attempt: u.attempts, sql: q.sql, binds: q.binds.map((b) => b.value) });
    // required columns (the key and BRANCH_ID of a table created with identifier fields) must hold no NULL
    const required = st.schema!.fields.flatMap((f, i) => (f.nullable ? [] : [i]));
    for await (const b of u.branch.source.read(q, u.columns, target, { batchSize: u.branch.fetchBatchSize ?? s.fetchBatchSize, signal: ctx.signal, stats })) {
      for (const i of required) {
        const n = b.data.children[i].nullCount;
        if (n > 0) throw Object.assign(new Error(`etl: ${u.def.lakeName} on branch ${u.branch.key}: key column ${st.schema!.fields[i].name} has ${n} NULL value(s); a unique_key column must not be NULL`), { fatal: true });
      }
      await writer.add(b);
    }
    u.files = await writer.finish();
    u.staged = writer;
    u.rows = stats.rows;
    u.stats = stats;
    u.status = 'SUCCESS';
    u.finishedAt = new Date();
    ulog.info('extracted', { rows: u.rows, files: u.files.length, attempts: u.attempts });
  } catch (e) {
    // the attempt's error decides the retry; a failed clean-up only leaves files the run's final rm removes
    await writer?.discard().catch((d) => ulog.warn('could not discard the failed attempt\'s staging', { error: toError(d).message }));
    throw e;
  }
}
