import { Option, type Command } from 'commander';
import { withCli } from '../cli/context';
import { executeEtl } from './execute';
import type { EtlRunSummary } from './run-types';
import { EtlUsageError } from './select-branches';
import { DEFAULT_SETTINGS, type EtlSettings } from './settings';
import { TablesConfigError } from '../config/tables-json';
import { SchemaUnionError } from './schema-union';

/** Exit codes of `tributary etl`. */
export const EXIT = { ok: 0, unitsFailed: 1, usage: 2 } as const;

class FlagError extends Error {}

function posInt(flag: string, v: string | undefined, min = 1): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new FlagError(`${flag}: expected an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  return Number(v);
}

function ratio(flag: string, v: string): number {
  if (!/^\d+(\.\d+)?$/.test(v.trim()) || Number(v) > 1) throw new FlagError(`${flag}: expected a number from 0 to 1, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** `300`, `300s`, `5m`, `250ms` → milliseconds. */
export function parseDelay(flag: string, v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) throw new FlagError(`${flag}: expected seconds (e.g. 300) or a duration like 5m, 30s, 250ms, got ${JSON.stringify(v)}`);
  const n = Number(m[1]);
  return Math.round(n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h']));
}

function list(v?: string): string[] {
  return v ? v.split(',').map((x) => x.trim()).filter(Boolean) : [];
}

interface EtlFlags {
  mode?: string; branch?: string; tables?: string; category?: string; selfTest?: boolean; keepStaging?: boolean;
  maxTableWorkers?: string; loadWorkers?: string; poolSize?: string; retries?: string; retryDelay?: string; plan?: boolean;
  tablesFile: string; json?: boolean; fetchBatchSize?: string; loadGroupMaxBytes?: string; namespace?: string;
  snapshotExpireDays?: string; snapshotMinToKeep?: string; snapshotMaintenance?: boolean; compactDeletedRatio?: string; oracleClientLibDir?: string;
  encoderThreads?: string; compression?: string;
}

/** Flags → settings; every bad value fails with the flag's name. */
export function settingsFromFlags(o: EtlFlags): EtlSettings {
  if (!o.mode) throw new FlagError('--mode: required (INITIAL or INCREMENTAL)');
  const mode = o.mode.toUpperCase();
  if (mode !== 'INITIAL' && mode !== 'INCREMENTAL') throw new FlagError(`--mode: expected INITIAL or INCREMENTAL, got ${JSON.stringify(o.mode)}`);
  const category = (o.category ?? 'both').toLowerCase();
  if (!['masters', 'transactions', 'both'].includes(category)) throw new FlagError(`--category: expected masters, transactions or both, got ${JSON.stringify(o.category)}`);
  const compression = (o.compression ?? DEFAULT_SETTINGS.compression).toLowerCase();
  if (!['snappy', 'zstd', 'uncompressed', 'lz4'].includes(compression)) throw new FlagError(`--compression: expected snappy, zstd, lz4 or uncompressed, got ${JSON.stringify(o.compression)}`);
  if (o.namespace !== undefined && !/^[a-z0-9_]+$/.test(o.namespace)) throw new FlagError(`--namespace: lower-case letters, digits and _ only, got ${JSON.stringify(o.namespace)}`);
  const d = DEFAULT_SETTINGS;
  return {
    ...d,
    mode, category: category as EtlSettings['category'], branches: list(o.branch), tables: list(o.tables),
    keepStaging: !!o.keepStaging,
    maxTableWorkers: posInt('--max-table-workers', o.maxTableWorkers) ?? d.maxTableWorkers,
    loadWorkers: posInt('--load-workers', o.loadWorkers) ?? d.loadWorkers,
    poolSize: posInt('--pool-size', o.poolSize) ?? d.poolSize,
    retries: posInt('--retries', o.retries, 0) ?? d.retries,
    retryDelayMs: o.retryDelay !== undefined ? parseDelay('--retry-delay', o.retryDelay) : d.retryDelayMs,
    fetchBatchSize: posInt('--fetch-batch-size', o.fetchBatchSize) ?? d.fetchBatchSize,
    loadGroupMaxBytes: posInt('--load-group-max-bytes', o.loadGroupMaxBytes) ?? d.loadGroupMaxBytes,
    snapshotExpireDays: posInt('--snapshot-expire-days', o.snapshotExpireDays, 0) ?? d.snapshotExpireDays,
    snapshotMinToKeep: posInt('--snapshot-min-to-keep', o.snapshotMinToKeep) ?? d.snapshotMinToKeep,
    snapshotMaintenance: o.snapshotMaintenance !== false,
    compactDeletedRatio: o.compactDeletedRatio !== undefined ? ratio('--compact-deleted-ratio', o.compactDeletedRatio) : d.compactDeletedRatio,
    encoderThreads: posInt('--encoder-threads', o.encoderThreads) ?? d.encoderThreads,
    compression: compression as EtlSettings['compression'],
    namespace: o.namespace ?? d.namespace,
  };
}

function printSummary(s: EtlRunSummary): void {
  const w = (x: string) => process.stdout.write(x + '\n');
  w(`run ${s.runId}  mode ${s.mode}  ${s.ok ? 'OK' : 'FAILED'}  ${(s.durationMs / 1000).toFixed(1)}s`);
  for (const p of s.phases) if (!p.ran) w(`phase ${p.phase}: not run (an earlier phase hit a fatal error)`);
  for (const u of s.units) {
    w(`${u.phase.padEnd(12)} ${u.table.padEnd(28)} ${u.branch.padEnd(14)} ${u.status.padEnd(8)} rows=${u.rows} attempts=${u.attempts}${u.writeDisposition ? ` ${u.writeDisposition}` : ''}${u.error ? `  ${u.error.split('\n')[0]}` : ''}`);
  }
  for (const [t, d] of Object.entries(s.drift)) w(`schema drift in ${t}: ${JSON.stringify(d)}`);
}

function printPlan(s: EtlRunSummary, json: boolean): void {
  if (json) { process.stdout.write(JSON.stringify({ runId: s.runId, mode: s.mode, units: s.units.map((u) => ({ phase: u.phase, table: u.table, branch: u.branch, status: u.status, sql: u.sql ?? null, binds: u.binds ?? [], note: u.error })) }, null, 2) + '\n'); return; }
  for (const u of s.units) {
    process.stdout.write(`-- ${u.phase} ${u.table} @ ${u.branch}${u.status !== 'PLANNED' ? ` [${u.status}]` : ''}\n`);
    if (u.error) process.stdout.write(`-- note: ${u.error}\n`);
    if (u.sql) process.stdout.write(`${u.sql}\n`);
    process.stdout.write(`-- binds: ${JSON.stringify((u.binds ?? []).map((b) => ({ [b.name]: b.value, kind: b.kind })))}\n\n`);
  }
}

/** `tributary etl …`: the multi-branch extract/load (seed 000's flags). */
export function registerEtlCommands(program: Command): void {
  program.command('etl')
    .description('Extract tables from every branch (Oracle/Postgres) into the Iceberg lake: INITIAL or INCREMENTAL (CDC)')
    .addOption(new Option('--mode <mode>', 'INITIAL (full/ranged load) or INCREMENTAL (CDC since the last watermark)'))
    .option('--branch <keys>', 'comma-separated branch keys (default: all branches)')
    .option('--tables <names>', 'comma-separated tables: OWNER.TABLE, TABLE, subquery name or lake name (default: all)')
    .option('--category <which>', 'masters, transactions or both; masters run first as their own phase', 'both')
    .option('--self-test', 'run the whole pipeline on synthetic branches generated by Tributary (no external database)')
    .option('--keep-staging', "keep each table's staged Parquet after its load")
    .option('--max-table-workers <n>', `tables extracted at once per branch (default: ${DEFAULT_SETTINGS.maxTableWorkers})`)
    .option('--load-workers <n>', `tables loaded into the lake at once (default: ${DEFAULT_SETTINGS.loadWorkers})`)
    .option('--pool-size <n>', `connections per branch (default: the branch's pool_size, else ${DEFAULT_SETTINGS.poolSize})`)
    .option('--retries <n>', `retries after a connection/transient error (default: ${DEFAULT_SETTINGS.retries})`)
    .option('--retry-delay <seconds>', 'delay between retries: seconds, or 30s / 5m / 250ms (default: 300)')
    .option('--fetch-batch-size <rows>', `rows per fetch round trip when a branch sets none (default: ${DEFAULT_SETTINGS.fetchBatchSize})`)
    .option('--load-group-max-bytes <bytes>', `staged Parquet bytes one merge holds at once (default: ${DEFAULT_SETTINGS.loadGroupMaxBytes})`)
    .option('--snapshot-expire-days <days>', `expire lake snapshots older than this after each load (default: ${DEFAULT_SETTINGS.snapshotExpireDays})`)
    .option('--snapshot-min-to-keep <n>', `snapshots always kept (default: ${DEFAULT_SETTINGS.snapshotMinToKeep})`)
    .option('--no-snapshot-maintenance', 'skip snapshot expiry after loads')
    .option('--compact-deleted-ratio <r>', `after a merge, rewrite partitions whose deleted rows reach this share (0 = never; default: ${DEFAULT_SETTINGS.compactDeletedRatio})`)
    .option('--namespace <ns>', `lake namespace of the data tables (default: ${DEFAULT_SETTINGS.namespace}; self-test: selftest)`)
    .option('--oracle-client-lib-dir <dir>', 'Oracle Instant Client dir for thick mode (after $ORACLE_CLIENT_LIB_DIR; ignored when missing)')
    .option('--encoder-threads <n>', `Parquet encoder threads (default: ${DEFAULT_SETTINGS.encoderThreads})`)
    .option('--compression <codec>', 'staged/lake Parquet codec: snappy, zstd, lz4, uncompressed (default: snappy)')
    .option('--plan', "print each unit's rendered SQL and binds; extract and write nothing")
    .option('--tables-file <path>', 'table definitions', './tables.json')
    .option('--json', 'print a machine-readable summary')
    .addHelpText('after', '\nExit codes: 0 every unit succeeded; 1 some unit failed or was refused; 2 bad flags or tables.json.')
    .action(async (o: EtlFlags) => {
      let settings: EtlSettings;
      try {
        settings = settingsFromFlags(o);
      } catch (e) {
        process.stderr.write(`error: ${(e as Error).message}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      await withCli(async (ctx) => {
        try {
          const summary = await executeEtl(ctx, settings, {
            tablesFile: o.tablesFile, selfTest: o.selfTest, plan: o.plan, poolSizeOverride: o.poolSize ? settings.poolSize : undefined,
            oracleClientLibDir: o.oracleClientLibDir, oracleClientLibDirEnv: process.env.ORACLE_CLIENT_LIB_DIR,
          });
          if (o.plan) printPlan(summary, !!o.json);
          else if (o.json) process.stdout.write(JSON.stringify(summary, (_, v) => (typeof v === 'bigint' ? v.toString() : v), 2) + '\n');
          else printSummary(summary);
          process.exitCode = summary.ok ? EXIT.ok : EXIT.unitsFailed;
        } catch (e) {
          if (e instanceof TablesConfigError || e instanceof EtlUsageError || e instanceof SchemaUnionError) {
            process.stderr.write(`error: ${e.message}\n`);
            process.exitCode = EXIT.usage;
            return;
          }
          throw e;
        }
      });
    });
}
