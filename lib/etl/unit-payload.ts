import { z } from 'zod';
import { EtlRequest } from './request';

/**
 * `etl.unit`: one (table × branch) extraction of a fanned-out `etl.run`
 * (internal: only its coordinator queues it). Everything the coordinator's
 * planner and schema step decided travels with it, so every attempt on every
 * worker stages the same rows in the same lake schema. Pure zod.
 */
export const EtlUnitPayload = z.strictObject({
  /** The coordinator's job run. */
  parentRunId: z.uuid(),
  /** The ETL run id (`etl-<job run>`): staging folder and control tables. */
  runId: z.string().min(1).max(200),
  attempt: z.number().int().min(1).max(100),
  /** The coordinator's request: tables, branches and settings resolve as they did there. */
  request: EtlRequest,
  phase: z.enum(['masters', 'transactions']),
  table: z.string().min(1).max(500),
  branch: z.string().min(1).max(200),
  /** The schema step's description of the unit's query; null when it failed there (the unit describes again). */
  columns: z.array(z.object({ name: z.string(), type: z.object({ kind: z.string() }).loose(), sourceType: z.string() }).loose()).nullable(),
  watermark: z.object({ cdc: z.string().nullable(), date: z.string().nullable() }).nullable(),
  /** The lake's Arrow schema to stage in (field ids in each field's metadata). */
  schema: z.array(z.object({ name: z.string(), type: z.object({ kind: z.string() }).loose(), nullable: z.boolean(), metadata: z.record(z.string(), z.string()) })),
  /** insert_at / Recorded_updated_at of the run, wall-clock micros. */
  loadTime: z.string().regex(/^\d+$/),
  /** Units of this run that may read the branch at once, over all workers. */
  slots: z.number().int().min(1).max(64),
});
export type EtlUnitPayload = z.infer<typeof EtlUnitPayload>;
