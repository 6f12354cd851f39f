import type { JobContext } from '../../jobs/types';
import { assertCoordinatorRunning } from '../../jobs/fanout';
import { slicesContext } from '../job-context';
import type { SliceOutcome } from '../run/executor';
import { lakeTargetFromSettings } from '../run/lake-writer';
import { createNativeExecutor } from '../run/native-executor';
import { createRunLog } from '../run/run-log';
import type { SlicePayload } from '../run/slice-payload';
import { getSlices } from '../run/state';
import { settingsOf } from './run';
import { AppError } from '../../errors';

/** The worker's side of `slices.slice`: one slice of a fanned-out native run, through the native executor, reading the coordinator's snapshot. */
export async function executeSlice(ctx: JobContext, p: SlicePayload): Promise<SliceOutcome> {
  await assertCoordinatorRunning(ctx.pool, p.parentRunId);
  const sctx = slicesContext(ctx);
  const s = { ...(await settingsOf(sctx, p.request)), concurrency: 1 };
  const slice = (await getSlices(ctx.pool, p.request.runId)).find((x) => x.id === p.sliceId);
  if (!slice) throw new AppError('not_found', `slices: slice ${p.sliceId} of run ${p.request.runId} no longer exists`);
  const log = createRunLog(ctx.pool, p.request.runId, ctx.logger);
  const ex = await createNativeExecutor({
    pool: ctx.pool, settings: s, log, signal: ctx.signal, watermark: null, snapshotId: p.snapshotId,
    lakeWriter: s.targetLake ? await lakeTargetFromSettings(ctx.pool, s, ctx.env.warehouse, ctx.env.s3) : null,
  });
  try {
    ctx.logger.info(`slice ${slice.roworder} (attempt ${p.attempt})`, { worker: ctx.workerId });
    const running = await ex.launch(slice);
    const onAbort = () => { void running.cancel('worker stopping or run cancelled'); };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try { return await running.done; } finally { ctx.signal.removeEventListener('abort', onAbort); }
  } finally {
    await ex.close();
  }
}
