import { z } from 'zod';
import { durationMsField, intField, listField, namespaceField } from '../config/request';
import { checkWindowValue } from './window-value';

const windowValue = z.string().superRefine((v, ctx) => {
  const why = checkWindowValue(v);
  if (why) ctx.addIssue({ code: 'custom', message: `${why}, got ${JSON.stringify(v)}` });
});

/**
 * One reconciliation as asked for, by `tributary dq` flags or a `dq.run`
 * payload: the same fields, bounds and messages for both (pure zod).
 */
export const DqRequest = z.strictObject({
  branch: listField.default([]).describe('Branch keys. (Default: every branch)'),
  tables: listField.default([]).describe('OWNER.TABLE, TABLE, subquery name or lake name. (Default: all)'),
  tablesFile: z.string().min(1).max(4096).optional().describe('tables.json: on the CLI any path; in a job a path inside the data folder. (Default: the configured tables.json)'),
  tablesJson: z.unknown().optional().describe('tables.json content inline, instead of a file.'),
  since: windowValue.optional().describe('Window start, YYYY-MM-DD[ HH:MM:SS]. (Default: none — each table in full, from the start of its INITIAL range)'),
  until: windowValue.optional().describe("Window end; a bare date includes that day. (Default: each unit's last watermark)"),
  hash: z.boolean().default(true).describe('Row-hash check (`--no-hash`: counts only). (Default: true)'),
  write: z.boolean().default(true).describe('Append to etl_meta.etl_dq_results (`--no-write`). (Default: true)'),
  csv: z.string().trim().min(1, 'expected a folder').max(4096).optional().describe('Also write `<dir>/<run id>.csv`: on the CLI any folder; in a job a folder inside the data folder.'),
  selfTest: z.boolean().default(false).describe('Reconcile against kept staging Parquet, no source database. (Default: false)'),
  repair: z.boolean().default(false).describe('Re-extract keys missing or different in the lake and merge them. (Default: false)'),
  repairDeletes: z.boolean().default(false).describe('With repair (implies it): also delete keys found only in the lake. (Default: false)'),
  namespace: namespaceField.optional().describe('Lake namespace of the data tables. (Default: etl; self-test: selftest)'),
  examples: intField(0, 10_000).optional().describe('Example keys stored per mismatch category. (Default: 20)'),
  cdcWait: durationMsField(3_600_000).optional().describe("A streamed branch (`cdc: log`): how long to wait for the lake to reach the source's WAL position before comparing, seconds or 30s / 5m. (Default: 60 s)"),
})
  .refine((r) => r.tablesFile === undefined || r.tablesJson === undefined, { message: 'give tablesFile or tablesJson, not both', path: ['tablesJson'] })
  .superRefine((r, ctx) => {
    if (r.until !== undefined && r.since !== undefined && r.until.trim().slice(0, 10) < r.since.trim().slice(0, 10)) {
      ctx.addIssue({ code: 'custom', message: `is before the window start: the window ${r.since} … ${r.until} is empty`, path: ['until'] });
    }
  })
  .refine((r) => !(r.repair || r.repairDeletes) || r.hash, { message: 'needs the row-hash check to find the keys (drop --no-hash / set hash: true)', path: ['repair'] })
  .refine((r) => !((r.repair || r.repairDeletes) && r.selfTest), { message: 'not available with self-test (there is no source to re-extract from)', path: ['repair'] })
  // --repair-deletes implies --repair (seed 000).
  .transform((r) => ({ ...r, repair: r.repair || r.repairDeletes }));

export type DqRequest = z.infer<typeof DqRequest>;

/** Flag names that differ from the kebab-case of their field. */
export const DQ_FLAG_NAMES = { hash: '--no-hash', write: '--no-write' } as const;
