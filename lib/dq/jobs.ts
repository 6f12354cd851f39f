import { z } from 'zod';
import { defineJob } from '../jobs/types';
import { executeDq } from './execute';
import { checkWindowValue } from './window';

const list = z.union([z.string(), z.array(z.string())]).optional().transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : v.split(',').map((x) => x.trim()).filter(Boolean)));
const windowValue = z.string().refine((v) => checkWindowValue(v) === null, { message: 'must be YYYY-MM-DD or YYYY-MM-DD HH:MM:SS' });

/** Payload of `dq.run`: the CLI's parameters. */
export const DqRunPayload = z.strictObject({
  branch: list,
  tables: list,
  tablesFile: z.string().optional(),
  /** (Default: 1 January of the current year) */
  since: windowValue.optional(),
  /** (Default: each unit's last watermark) */
  until: windowValue.optional(),
  /** Row-hash check. (Default: true) */
  hash: z.boolean().default(true),
  /** Append to etl_dq_results. (Default: true) */
  write: z.boolean().default(true),
  csv: z.string().optional(),
  selfTest: z.boolean().default(false),
  repair: z.boolean().default(false),
  repairDeletes: z.boolean().default(false),
  namespace: z.string().regex(/^[a-z0-9_]+$/).optional(),
  examples: z.number().int().min(0).max(10_000).optional(),
}).refine((p) => !(p.repair || p.repairDeletes) || p.hash, { message: 'repair needs the row-hash check (hash: true)', path: ['repair'] });

export const dqJobs = [
  defineJob({
    kind: 'dq.run',
    description: 'Data-quality reconciliation of the lake against the sources (row counts + row hashes), optionally repairing',
    role: 'operator',
    payload: DqRunPayload,
    async run(ctx, p) {
      const s = await executeDq({ pool: ctx.pool, env: ctx.env, logger: ctx.logger, signal: ctx.signal }, {
        runId: `dq-${ctx.runId}`, branches: p.branch, tables: p.tables, tablesFile: p.tablesFile, since: p.since, until: p.until ?? null,
        hash: p.hash, write: p.write, csvDir: p.csv, selfTest: p.selfTest, repair: p.repair || p.repairDeletes, repairDeletes: p.repairDeletes,
        namespace: p.namespace, examples: p.examples, progress: (done, total) => ctx.progress(done, total),
        oracleClientLibDirEnv: ctx.env.ORACLE_CLIENT_LIB_DIR,
      });
      const bad = s.results.filter((r) => r.status === 'MISMATCH' || r.status === 'ERROR');
      const result = {
        runId: s.runId, ok: s.ok, csv: s.csvFile ?? null,
        units: s.results.map((r) => ({ table: r.table, branch: r.branch, status: r.status, source: r.oracleRowCount, lake: r.icebergRowCount, delta: r.hashTotalDelta, error: r.errorDetails })),
      };
      if (!s.ok) throw Object.assign(new Error(`dq: ${bad.length} of ${s.results.length} units MISMATCH or ERROR (run ${s.runId}): ${bad.slice(0, 5).map((r) => `${r.table}@${r.branch} ${r.status}`).join(', ')}`), { result });
      return result;
    },
  }),
];
