import type { Command } from 'commander';
import type { CliEdge } from '../cli/context';
import { recordCliRun } from '../jobs/record-cli-run';
import { localPaths } from '../config/data-path';
import { parseRequest } from '../config/request';
import { exitCodeFor, isInputError } from '../errors';
import { executeDq } from './execute';
import { DQ_FLAG_NAMES, DqRequest } from './request';
import { repairStatus, unitSummary, type DqResult } from './result';

/** Exit codes of `tributary dq` for a finished run; a failed one exits with its error's code (`exitCodeFor`). */
export const DQ_EXIT = { ok: 0, mismatch: 1 } as const;

/** Options of `tributary dq` that are not part of the request. */
const CLI_ONLY = ['json', 'oracleClientLibDir'] as const;

/** Flags → the reconciliation's request (the same schema as a `dq.run` payload); a bad value fails naming its flag. */
export function dqOptionsFromFlags(flags: Record<string, unknown>): DqRequest {
  const raw = Object.fromEntries(Object.entries(flags).filter(([k, v]) => v !== undefined && !(CLI_ONLY as readonly string[]).includes(k)));
  return parseRequest(DqRequest, raw, 'flags', DQ_FLAG_NAMES);
}

const n = (v: number | null) => (v === null ? '-' : String(v));

function printSummary(runId: string, rows: DqResult[], csvFile?: string): void {
  const w = (x: string) => process.stdout.write(x + '\n');
  w(`run ${runId}`);
  w(`${'table'.padEnd(26)} ${'branch'.padEnd(12)} ${'status'.padEnd(9)} ${'source'.padStart(9)} ${'lake'.padStart(9)} ${'delta'.padStart(6)} ${'match'.padStart(9)} ${'only_src'.padStart(8)} ${'only_lake'.padStart(9)} ${'mismatch'.padStart(8)}`);
  for (const r of rows) {
    w(`${r.table.padEnd(26)} ${r.branch.padEnd(12)} ${r.status.padEnd(9)} ${n(r.oracleRowCount).padStart(9)} ${n(r.icebergRowCount).padStart(9)} ${n(r.rowCountDelta).padStart(6)} ${n(r.hashMatched).padStart(9)} ${n(r.hashOnlyInOracle).padStart(8)} ${n(r.hashOnlyInIceberg).padStart(9)} ${n(r.hashMismatch).padStart(8)}`);
    const ex = r.exampleKeys as { only_in_source?: unknown[]; only_in_lake?: unknown[]; hash_mismatch?: { key: unknown; columns: string[] }[] } | null;
    if (ex?.only_in_source?.length) w(`    only in source: ${ex.only_in_source.map((k) => JSON.stringify(k)).join(' ')}`);
    if (ex?.only_in_lake?.length) w(`    only in lake:   ${ex.only_in_lake.map((k) => JSON.stringify(k)).join(' ')}`);
    if (ex?.hash_mismatch?.length) w(`    mismatch:       ${ex.hash_mismatch.map((m) => `${JSON.stringify(m.key)} [${m.columns.join(',')}]`).join(' ')}`);
    if (r.columnsOnlyInOracle.length) w(`    columns only in source: ${r.columnsOnlyInOracle.join(', ')}`);
    if (r.columnsOnlyInIceberg.length) w(`    columns only in lake: ${r.columnsOnlyInIceberg.join(', ')}`);
    if (r.windowNote) w(`    window: ${r.windowStart ?? '-'} … ${r.windowEnd ?? '-'} (${r.windowNote})`);
    if (r.repair) w(`    repair: ${JSON.stringify(r.repair)}`);
    if (r.errorDetails) w(`    ${r.errorDetails.split('\n')[0]}`);
  }
  const bad = rows.filter((r) => r.status === 'MISMATCH' || r.status === 'ERROR').length;
  const repaired = rows.filter((r) => r.status === 'OK' && repairStatus(r.repair) === 'REPAIRED').length;
  w(`${rows.length} unit(s): ${rows.filter((r) => r.status === 'OK').length} OK${repaired ? ` (${repaired} after repair)` : ''}, ${rows.filter((r) => r.status === 'MISMATCH').length} MISMATCH, ${rows.filter((r) => r.status === 'ERROR').length} ERROR, ${rows.filter((r) => r.status === 'SKIPPED').length} SKIPPED${bad ? '' : ''}`);
  if (csvFile) w(`csv: ${csvFile}`);
}

/** `tributary dq …`: reconcile the lake against the sources (seed 000's dq_check.py flags). */
export function registerDqCommands(program: Command, { withCli }: CliEdge): void {
  program.command('dq')
    .description('Data-quality reconciliation: windowed row counts and row-hash diff per table × branch, narrowed to keys, with repair')
    .option('--branch <keys>', 'comma-separated branch keys (default: all branches)')
    .option('--tables <names>', 'comma-separated tables: OWNER.TABLE, TABLE, subquery name or lake name (default: all)')
    .option('--tables-file <path>', 'table definitions (default: $TRIBUTARY_TABLES_FILE or ./tables.json)')
    .option('--since <date>', 'window start, YYYY-MM-DD[ HH:MM:SS] (default: none — each table in full, from the start of its INITIAL range)')
    .option('--until <date>', "window end; a bare date includes that day (default: each table × branch's last watermark in control_state)")
    .option('--no-hash', 'row counts only (skip the row-hash check)')
    .option('--csv <dir>', 'also write the results to <dir>/<run id>.csv')
    .option('--no-write', 'do not append to etl_meta.etl_dq_results')
    .option('--self-test', 'reconcile the lake against the staged Parquet kept by `tributary etl --keep-staging` (no source database)')
    .option('--repair', 're-extract keys missing or different in the lake and merge them (insert_at carried forward), then re-check them')
    .option('--repair-deletes', 'with repair (implies --repair): also delete keys found only in the lake')
    .option('--namespace <ns>', 'lake namespace of the data tables (default: etl; self-test: selftest)')
    .option('--examples <n>', 'example keys stored per mismatch category (default: 20)')
    .option('--cdc-wait <duration>', "a streamed branch (cdc: log): wait this long for the lake to reach the source's WAL position before comparing, e.g. 30s, 5m (default: 60s)")
    .option('--oracle-client-lib-dir <dir>', 'Oracle Instant Client dir for thick mode (after $ORACLE_CLIENT_LIB_DIR)')
    .option('--json', 'print the results as JSON')
    .addHelpText('after', '\nExit codes: 0 every unit OK (or SKIPPED); 1 some unit MISMATCH or ERROR (after --repair: some difference remains); 2 bad flags or tables.json.')
    .action(async (f: Record<string, unknown>) => {
      let o: DqRequest;
      try { o = dqOptionsFromFlags(f); } catch (e) {
        process.stderr.write(`error: ${(e as Error).message}\n`);
        process.exitCode = exitCodeFor(e);
        return;
      }
      await withCli(async (ctx) => {
        try {
          // Recorded as a run (source cli) so the Runs page shows it live; stored like a dq.run result.
          const s = await recordCliRun(ctx.pool, { kind: 'dq.run', params: o, logger: ctx.logger, level: ctx.env.LOG_LEVEL },
            (run) => executeDq({ ...ctx, logger: run.logger, paths: localPaths, style: 'flags', oracleClientLibDir: f.oracleClientLibDir as string | undefined, runId: `dq-${run.runId}`, progress: (d, t) => run.progress(d, t) }, o),
            (x) => ({
              result: { runId: x.runId, ok: x.ok, csv: x.csvFile ?? null, units: x.results.map(unitSummary) },
              error: x.ok ? null : `dq: ${x.results.filter((r) => r.status === 'MISMATCH' || r.status === 'ERROR').length} of ${x.results.length} units MISMATCH or ERROR (run ${x.runId})`,
            }));
          if (f.json) process.stdout.write(JSON.stringify({ runId: s.runId, ok: s.ok, csv: s.csvFile ?? null, results: s.results }, null, 2) + '\n');
          else printSummary(s.runId, s.results, s.csvFile);
          process.exitCode = s.ok ? DQ_EXIT.ok : DQ_EXIT.mismatch;
        } catch (e) {
          if (!isInputError(e)) throw e;
          process.stderr.write(`error: ${e.message}\n`);
          process.exitCode = exitCodeFor(e);
        }
      });
    });
}
