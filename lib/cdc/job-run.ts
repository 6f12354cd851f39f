import { dataDirPaths } from '../config/data-path';
import { AppError } from '../errors';
import type { JobContext } from '../jobs/types';
import { cdcTarget } from './branch';
import { CDC_DEFAULTS, type CdcRequest } from './request';
import { runStream } from './stream';

/**
 * How long a `cdc.stream` run waits for the branch's slot to be released before failing as a
 * second stream: a run taken over from a dead worker can find the slot still held by that
 * worker's walsender until the source notices (at once for a killed process, within
 * `wal_sender_timeout`, 60 s by default, for a lost machine).
 */
export const SLOT_RELEASE_WAIT_MS = 120_000;
const SLOT_POLL_MS = 2000;

/** The worker's side of `cdc.stream`: the CLI's `cdc start`, with a job's path policy; cancelling the run stops it after a last flush. */
export async function runStreamJob(ctx: JobContext, p: CdcRequest): Promise<unknown> {
  const t = await cdcTarget({ pool: ctx.pool, env: ctx.env, logger: ctx.logger, paths: dataDirPaths(ctx.env.dataDir), style: 'params' }, p);
  let rows = 0;
  const until = Date.now() + SLOT_RELEASE_WAIT_MS;
  for (let waited = false; ; waited = true) {
    try {
      return await runStream({
        pool: ctx.pool, lake: t.lake, branch: t.key, source: t.source, tables: t.tables, logger: ctx.logger, runId: `cdc-${ctx.runId}`, signal: ctx.signal, owner: ctx.workerId,
        flushIntervalMs: p.flushInterval ?? CDC_DEFAULTS.flushIntervalMs, flushRows: p.flushRows ?? CDC_DEFAULTS.flushRows,
        // a stream has no total: progress counts the changes applied
        onFlush: (f) => { rows += f.rows; ctx.progress(rows, rows); },
      });
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'conflict') || Date.now() > until || ctx.signal.aborted) throw e;
      if (!waited) ctx.logger.warn(`cdc: the slot of branch ${t.key} is in use; waiting up to ${SLOT_RELEASE_WAIT_MS / 1000} s for it to be released (a stream taken over from a dead worker)`);
      await new Promise<void>((res) => { const h = setTimeout(res, SLOT_POLL_MS); ctx.signal.addEventListener('abort', () => { clearTimeout(h); res(); }, { once: true }); });
    }
  }
}
