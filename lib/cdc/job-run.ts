import { dataDirPaths } from '../config/data-path';
import type { JobContext } from '../jobs/types';
import { cdcTarget } from './branch';
import { CDC_DEFAULTS, type CdcRequest } from './request';
import { runStream } from './stream';

/** The worker's side of `cdc.stream`: the CLI's `cdc start`, with a job's path policy; cancelling the run stops it after a last flush. */
export async function runStreamJob(ctx: JobContext, p: CdcRequest): Promise<unknown> {
  const t = await cdcTarget({ pool: ctx.pool, env: ctx.env, logger: ctx.logger, paths: dataDirPaths(ctx.env.dataDir), style: 'params' }, p);
  let rows = 0;
  return runStream({
    pool: ctx.pool, lake: t.lake, branch: t.key, source: t.source, tables: t.tables, logger: ctx.logger, runId: `cdc-${ctx.runId}`, signal: ctx.signal,
    flushIntervalMs: p.flushInterval ?? CDC_DEFAULTS.flushIntervalMs, flushRows: p.flushRows ?? CDC_DEFAULTS.flushRows,
    // a stream has no total: progress counts the changes applied
    onFlush: (f) => { rows += f.rows; ctx.progress(rows, rows); },
  });
}
