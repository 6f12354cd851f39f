import path from 'node:path';
import { fieldName, type ActionContext } from '../config/request';
import { AppError } from '../errors';
import { branchDescriptorOf, getBranches, type BranchConfig } from '../connections';
import { openLake, type Lake } from '../lake';
import { oracleBranchOptions, postgresBranchOptions, SYNTHETIC_TABLES } from '../sources';
import { resolveTables } from '../config/resolve-tables';
import { selectTables } from '../config/select-tables';
import { TablesConfigError } from '../config/tables-json';
import type { DqRequest } from './request';
import { writeResultsCsv } from './csv';
import { newDqRunId } from './result';
import { writeDqResults } from './results';
import { runDq, type DqOptions, type DqRunSummary } from './run';
import { runSelfTest } from './self-test';
import { openOracleDqSource, openPostgresDqSource, type DqBranch } from './source';

/** A dq request that cannot run as given (an unknown branch, no branches): a usage error naming the field. */
export class DqUsageError extends AppError {
  constructor(message: string, field?: string) { super('usage', message, { field }); this.name = 'DqUsageError'; }
}

/** What a reconciliation is handed by its caller (the CLI, the `dq.run` job, a test). */
export interface DqContext extends ActionContext {
  progress?: (done: number, total: number) => void;
}

/** Test seams and engine tunables no flag exposes. */
export interface DqOverrides extends Pick<DqOptions, 'maxRowsInMemory'> {
  /** Replace the branches. (Default: the connection records marked as branches) */
  dqBranches?: DqBranch[];
  /** Replace the lake. (Default: lib/lake on env.warehouse) */
  lake?: Lake;
}

/** Branch connection records → reconciler branches (one connection each, opened when the branch's turn comes). */
export function dqBranchesOf(configs: BranchConfig[], o: { oracleClientLibDirEnv?: string; oracleClientLibDir?: string } = {}): DqBranch[] {
  return configs.map((c) => {
    const d = branchDescriptorOf(c);
    // the setting first, then the flag, then the connection's own dir (lib/sources picks the first that exists)
    const opts = { oracleClientLibDir: [o.oracleClientLibDirEnv, o.oracleClientLibDir] };
    return {
      key: c.key,
      cdc: c.kind === 'postgres' && c.params.cdc === 'log',
      open: () => (d.kind === 'oracle' ? openOracleDqSource(oracleBranchOptions(d, opts)) : openPostgresDqSource(postgresBranchOptions(d, opts))),
    };
  });
}

/** Everything `tributary dq` and the `dq.run` job do: resolve tables, branches and the lake, run, write, export. */
export async function executeDq(ctx: DqContext, r: DqRequest, x: DqOverrides = {}): Promise<DqRunSummary & { csvFile?: string }> {
  const style = ctx.style ?? 'params';
  const name = (f: string) => fieldName([f], style);
  const o: DqOptions = {
    runId: ctx.runId, namespace: r.namespace, since: r.since ?? null, until: r.until ?? null, hash: r.hash, write: r.write,
    repair: r.repair || r.repairDeletes, repairDeletes: r.repairDeletes, examples: r.examples, maxRowsInMemory: x.maxRowsInMemory, cdcWaitMs: r.cdcWait,
  };
  const lake = x.lake ?? openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3, logger: ctx.logger });
  let all;
  try {
    all = await resolveTables({ env: ctx.env, paths: ctx.paths, style }, r, { synthetic: r.selfTest && !r.tablesFile ? SYNTHETIC_TABLES : undefined });
  } catch (e) {
    if (e instanceof TablesConfigError) throw new DqUsageError(`${name(r.tablesJson !== undefined ? 'tablesJson' : 'tablesFile')}: ${e.message}`, name('tablesFile'));
    throw e;
  }
  const tables = selectTables(all, r.tables ?? [], name('tables'));
  const csvDir = r.csv !== undefined ? await ctx.paths(name('csv'), r.csv, 'write') : undefined;
  let summary: DqRunSummary;
  if (r.selfTest) {
    const runId = o.runId ?? newDqRunId();
    const results = await runSelfTest({
      lake, tables, branches: r.branch ?? [], stagingRoot: path.join(ctx.env.dataDir, 'staging'), namespace: r.namespace ?? 'selftest', logger: ctx.logger, signal: ctx.signal,
    }, { runId, examples: o.examples });
    if (o.write !== false) await writeDqResults(ctx.pool, results);
    summary = { runId, results, ok: results.every((x) => x.status === 'OK' || x.status === 'SKIPPED') };
  } else {
    let branches = x.dqBranches ?? dqBranchesOf(await getBranches({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } }), {
      oracleClientLibDirEnv: ctx.env.ORACLE_CLIENT_LIB_DIR, oracleClientLibDir: ctx.oracleClientLibDir,
    });
    if (r.branch?.length) {
      const known = branches;
      branches = r.branch.map((k) => {
        const b = known.find((y) => y.key === k);
        if (!b) throw new DqUsageError(`${name('branch')}: unknown branch ${k} (known: ${known.map((y) => y.key).join(', ') || 'none'})`, name('branch'));
        return b;
      });
    }
    if (!branches.length) throw new DqUsageError('dq: no branches configured — add connections marked as branches (Connections page, or `tributary connections import`)', name('branch'));
    summary = await runDq({ pool: ctx.pool, lake, tables, branches, logger: ctx.logger, signal: ctx.signal, progress: ctx.progress }, o);
  }
  const csvFile = csvDir ? await writeResultsCsv(csvDir, summary.runId, summary.results) : undefined;
  return { ...summary, csvFile };
}
