import { z } from 'zod';
import { RunRequest } from '../requests';

/**
 * `slices.slice`: one slice of a fanned-out native `slices.run` (internal:
 * only its coordinator queues it). The coordinator's request resolves the same
 * source and target on any worker; `snapshotId` is the coordinator's exported
 * snapshot, so every slice reads one consistent state wherever it runs. Pure zod.
 */
export const SlicePayload = z.strictObject({
  parentRunId: z.uuid(),
  attempt: z.number().int().min(1).max(100),
  request: RunRequest,
  /** striim_orchestration.id of the slice. */
  sliceId: z.number().int().min(1),
  snapshotId: z.string().max(200).nullable(),
});
export type SlicePayload = z.infer<typeof SlicePayload>;
