import { z } from 'zod';
import { durationMsField, intField, namespaceField } from '../config/request';

/**
 * A CDC action as asked for by `tributary cdc …` flags (and a `cdc.stream` payload): the same
 * fields, bounds and messages for both. Pure zod: validating loads no engine.
 */
export const CdcRequest = z.strictObject({
  branch: z.string({ error: 'required: the branch key' }).min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only').describe('The branch key (a PostgreSQL branch connection with `cdc: log`).'),
  namespace: namespaceField.optional().describe('Lake namespace of the data tables. (Default: etl)'),
  tablesFile: z.string().min(1).max(4096).optional().describe('tables.json to use: on the CLI any path; in a job a path inside the data folder. (Default: the configured tables.json)'),
  flushInterval: durationMsField(3_600_000).optional().describe('Apply what arrived at least this often: seconds, or 500ms / 10s / 1m. (Default: 10 s)'),
  flushRows: intField(1, 10_000_000).optional().describe('Apply as soon as this many changes wait. (Default: 10000)'),
});

export type CdcRequest = z.infer<typeof CdcRequest>;

/** `POST /api/v1/cdc/:branch/start`'s body: the stream's options, the branch being in the path. */
export const CdcStartBody = CdcRequest.omit({ branch: true });

/** The `:branch` of the CDC routes, with the payload's rule. */
export const CdcBranchParam = z.object({ branch: CdcRequest.shape.branch });

export const CDC_DEFAULTS = { namespace: 'etl', flushIntervalMs: 10_000, flushRows: 10_000 } as const;
