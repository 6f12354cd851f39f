import fs from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { withCli, type CliContext } from '../cli/context';
import { createPool } from '../db/pool';
import { buildBoard } from './run/board';
import { clearRun, getStatus, readLogs, resetRun } from './run/manage';
import { lakeTargetFromSettings } from './run/lake-writer';
import { createNativeExecutor } from './run/native-executor';
import { runSlices, type RunResult } from './run/orchestrator';
import { reconcileRun, type ReconcileTarget } from './run/reconcile';
import { RunRefused } from './run/run-lock';
import { resolveSettings, type RunFlags, type RunSettings } from './run/settings';
import { checkSetup, setupWizard } from './run/setup';
import { openSource } from './run/source';
import { createStriimClient } from './run/striim-client';
import { startStriimEmulator } from './run/striim-emulator';
// probe | split | assort (the planning half of the engine) hang under the same `slices` command.
import { registerPlanningCommands } from './planning/cli';

/** Exit codes of `tributary slices …`. */
export const EXIT = { ok: 0, failures: 1, usage: 2, refused: 3, interrupted: 130 } as const;

class UsageError extends Error {}

function fail(e: unknown): never {
  const err = e as Error;
  if (e instanceof RunRefused) process.exitCode = EXIT.refused;
  else if (e instanceof UsageError || /^slices: (--|.*must be|.*is required)/.test(err.message)) process.exitCode = EXIT.usage;
  else process.exitCode = process.exitCode || EXIT.failures;
  throw err;
}

function settingsFrom(ctx: Pick<CliContext, 'env'>, flags: RunFlags): RunSettings {
  return resolveSettings(process.env, flags, ctx.env.dataDir);
}

function posInt(flag: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`slices: ${flag} must be a positive integer (>= 1), got '${v}'`);
  return Number(v);
}

const runIdOpt = () => new Option('--run-id <n>', 'run id (Default: UNIQUE_RUN_ID)');

function runIdOf(flags: { runId?: string }, required = true): number | undefined {
  const v = flags.runId ?? process.env.UNIQUE_RUN_ID;
  if (v === undefined || v === '') {
    if (required) throw new UsageError('slices: --run-id is required (or UNIQUE_RUN_ID)');
    return undefined;
  }
  return posInt('--run-id', String(v), 1);
}

function striimClientFrom(s: RunSettings) {
  return createStriimClient({ ...s.striim });
}

function addRunOptions(c: Command): Command {
  return c
    .addOption(runIdOpt())
    .option('--query-file <file>', 'queryfile (SQL|TARGET per line); needed on a fresh run')
    .option('--executor <kind>', 'striim (one Striim app per slice) or native (Tributary copies) (Default: striim)')
    .option('--concurrency <n>', 'slices in flight, CONCURRENT_APPS_MAX (Default: 5)')
    .option('--monitor-interval <s>', 'mon poll interval in seconds, APP_MONITOR_INTERVAL_SECONDS (Default: 15 DEV / 60 PROD)')
    .option('--deploy-wait <s>', 'pause between deploys in seconds, DEPLOY_WAIT_TIME_SECONDS (Default: 20 DEV / 120 PROD)')
    .option('--stall-timeout <s>', 'fail a slice RUNNING longer than this, SLICE_MAX_RUNTIME_SECONDS; 0 = off (Default: 0)')
    .option('--max-attempts <n>', 'attempts before a slice is QUARANTINED, SLICE_MAX_ATTEMPTS (Default: 3)')
    .option('--no-retry-failed', 'do not re-dispatch FAILED slices within this run (SLICE_RETRY_IN_RUN=0)')
    .option('--retry-delay <s>', 'wait before re-dispatching a failed slice, doubled per attempt, SLICE_RETRY_DELAY_SECONDS (Default: 30)')
    .option('--deployment-group <g>', 'Striim deployment group, DEPLOYMENT_GROUP_TARGET (Default: default)')
    .option('--template <file>', 'TQL template, SOURCE_TQL_FILE (Default: built-in admin.SW.tql); stored with the run')
    .option('--log-dir <dir>', 'folder of the watermark sidecar (Default: <data>/slices/logging)')
    .option('--source-engine <e>', 'oracle or postgres, SOURCE_DB_TYPE')
    .option('--target-engine <e>', 'oracle or postgres, TARGET_DB_TYPE (Default: the source engine)')
    .option('--source-url <url>', 'Postgres source (watermark, native reads, reconcile), SLICES_SOURCE_URL')
    .option('--target-url <url>', 'Postgres target (native writes, reconcile), SLICES_TARGET_URL')
    .option('--target-lake <warehouse>', 'native executor: merge into the Tributary lake (file:// warehouse; "default" = TRIBUTARY_WAREHOUSE)')
    .option('--merge-keys <cols>', 'lake merge key columns, comma-separated')
    .option('--batch-rows <n>', 'native: rows per upsert batch, NATIVE_BATCH_ROWS (Default: 50000)')
    .option('--no-snapshot', 'native: do not share one exported snapshot across slices')
    .option('--force-fresh', 'start fresh even if the run had rows (FORCE_FRESH=1)')
    .option('--striim-url <url>', 'Striim base URL (Default: STRIIM_URL_PREFIX + STRIIM_NODE)')
    .option('--striim-retries <n>', 'retries of Striim network errors and 5xx, STRIIM_API_RETRIES (Default: 5)')
    .option('--backoff-base <ms>', 'first Striim retry delay in ms, STRIIM_BACKOFF_BASE_MS (Default: 1000)')
    .option('--backoff-max <ms>', 'Striim retry delay ceiling in ms, STRIIM_BACKOFF_MAX_MS (Default: 30000)');
}

/** `tributary slices …`: run | status | reset | clear | logs | board | reconcile | setup | striim-emulator (+ probe | split | assort). */
export function registerSlicesCommands(program: Command): void {
  const slices = program.command('slices').description('parallel initial loads: one Striim app (or native copier) per slice');

  addRunOptions(slices.command('run').description('register (fresh) or resume a run and drive its slices to completion'))
    .action(async (o: RunFlags & { queryFile?: string; runId?: string }) => {
      try {
        runIdOf(o);
        await withCli(async (ctx) => {
          const s = settingsFrom(ctx, o);
          const queryFileText = o.queryFile ? await fs.readFile(o.queryFile, 'utf8').catch(() => { throw new UsageError(`slices: --query-file: cannot read ${o.queryFile}`); }) : null;
          const templateText = s.templateFile ? await fs.readFile(s.templateFile, 'utf8').catch(() => { throw new UsageError(`slices: --template: cannot read ${s.templateFile}`); }) : null;
          const r: RunResult = await runSlices({
            pool: ctx.pool, settings: s, logger: ctx.logger, signal: ctx.signal, queryFileText, queryFilePath: o.queryFile ?? null, templateText,
            print: (l) => process.stdout.write(l + '\n'),
            nativeExecutor: async (x) => createNativeExecutor({ ...x, lakeWriter: s.targetLake ? await lakeTargetFromSettings(ctx.pool, s, ctx.env.warehouse, ctx.env.s3) : null }),
          });
          process.exitCode = r.verdict === 'FINISHED WITH FAILURES' ? EXIT.failures : r.verdict === 'INTERRUPTED' ? EXIT.interrupted : EXIT.ok;
        });
      } catch (e) { fail(e); }
    });

  slices.command('status').description('run progress: counts by status, in-flight and failed slices')
    .addOption(runIdOpt())
    .option('--all-runs', 'every run in the state table')
    .option('--failed', 'only FAILED / QUARANTINED slices')
    .option('--json', 'machine-readable JSON')
    .option('--rows', 'individual slice rows')
    .action(async (o: { runId?: string; allRuns?: boolean; failed?: boolean; json?: boolean; rows?: boolean }) => {
      try {
        const runId = o.allRuns ? undefined : runIdOf(o, false);
        await withCli(async (ctx) => {
          const st = await getStatus(ctx.pool, { runId, allRuns: o.allRuns || runId === undefined, failed: o.failed, rows: o.rows || o.failed });
          if (o.json) { process.stdout.write(JSON.stringify(st, null, 2) + '\n'); return; }
          process.stdout.write(formatStatus(st, o) + '\n');
        });
      } catch (e) { fail(e); }
    });

  slices.command('reset').description('re-queue FAILED slices as NEW so the next run retries them')
    .addOption(runIdOpt())
    .option('--include-faileddrop', 'also re-queue COMPLETED-FAILEDDROP slices')
    .option('--include-quarantined', 'also re-queue QUARANTINED slices (their attempt counter restarts)')
    .option('--with-striim-cleanup', "stop/undeploy/drop the run's leftover ILA_ apps and namespaces first")
    .action(async (o: { runId?: string; includeFaileddrop?: boolean; includeQuarantined?: boolean; withStriimCleanup?: boolean }) => {
      try {
        const runId = runIdOf(o)!;
        await withCli(async (ctx) => {
          const s = settingsFrom(ctx, { runId });
          const r = await resetRun(ctx.pool, runId, { includeFaileddrop: o.includeFaileddrop, includeQuarantined: o.includeQuarantined, striim: o.withStriimCleanup ? striimClientFrom(s) : null, prefix: s.namespacePrefix });
          process.stdout.write(`run ${runId}: ${r.requeued} slice(s) re-queued as NEW${o.withStriimCleanup ? `; Striim cleanup dropped ${r.cleaned.length} object(s)` : ''}\n`);
        });
      } catch (e) { fail(e); }
    });

  slices.command('clear').description('retire a run from the active view (history kept); --hard --yes deletes it')
    .addOption(runIdOpt())
    .option('--hard', "hard-delete the run's rows (needs --yes)")
    .option('--yes', 'confirm --hard')
    .option('--with-striim-cleanup', "also drop the run's leftover ILA_ apps and namespaces")
    .action(async (o: { runId?: string; hard?: boolean; yes?: boolean; withStriimCleanup?: boolean }) => {
      try {
        const runId = runIdOf(o)!;
        if (o.hard && !o.yes) throw new UsageError('slices: --hard deletes the run\'s rows: add --yes to confirm');
        await withCli(async (ctx) => {
          const s = settingsFrom(ctx, { runId });
          const r = await clearRun(ctx.pool, runId, { hard: o.hard, striim: o.withStriimCleanup ? striimClientFrom(s) : null, prefix: s.namespacePrefix });
          process.stdout.write(`run ${runId}: ${r.rows} row(s) ${o.hard ? 'deleted' : 'retired (iscurrentrow = false)'}${o.withStriimCleanup ? `; Striim cleanup dropped ${r.cleaned.length} object(s)` : ''}\n`);
        });
      } catch (e) { fail(e); }
    });

  slices.command('logs').description("the run's log")
    .addOption(runIdOpt())
    .option('--lines <n>', 'last N lines (Default: 50)')
    .option('--follow', 'stream new lines (like tail -f) until Ctrl+C')
    .option('--errors', 'only ERROR lines')
    .action(async (o: { runId?: string; lines?: string; follow?: boolean; errors?: boolean }) => {
      try {
        const runId = runIdOf(o)!;
        const lines = posInt('--lines', o.lines, 50);
        await withCli(async (ctx) => {
          let last = 0;
          const show = async (n: number) => {
            for (const l of await readLogs(ctx.pool, runId, { lines: n, errors: o.errors, afterId: last })) {
              process.stdout.write(`${l.ts.toISOString()} ${l.level.toUpperCase().padEnd(5)} ${l.slice !== null ? `[slice ${l.slice}] ` : ''}${l.message}\n`);
              last = l.id;
            }
          };
          await show(lines);
          while (o.follow && !ctx.signal.aborted) {
            await new Promise((r) => setTimeout(r, 1000));
            await show(10_000);
          }
        });
      } catch (e) { fail(e); }
    });

  slices.command('board').description('the live board feed')
    .addOption(runIdOpt())
    .option('--json', 'emit the JSON feed')
    .option('--no-striim', 'do not ask Striim for live rates')
    .action(async (o: { runId?: string; json?: boolean; striim?: boolean }) => {
      try {
        const runId = runIdOf(o)!;
        await withCli(async (ctx) => {
          const s = settingsFrom(ctx, { runId });
          const useStriim = o.striim !== false && s.executor === 'striim' && !!(process.env.STRIIM_NODE || process.env.STRIIM_URL);
          const b = await buildBoard(ctx.pool, runId, { striim: useStriim ? createStriimClient({ ...s.striim, retries: 0, timeoutMs: 5000 }) : null });
          if (o.json) { process.stdout.write(JSON.stringify(b, null, 2) + '\n'); return; }
          const width = 40;
          const filled = Math.round((b.percentComplete / 100) * width);
          process.stdout.write([
            `run ${runId} (${b.executor ?? '?'})  ${b.active ? 'RUNNING' : b.verdict ?? 'idle'}  ${b.percentComplete}%  [${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`,
            Object.entries(b.counts).map(([k, v]) => `${k} ${v}`).join('  '),
            ...(b.inFlight.length ? ['in flight:', ...b.inFlight.map((x) => `  #${x.slice} ${x.target} ${x.namespace ?? ''} ${x.elapsedSeconds}s ${x.rowsPerSecond ?? '-'} rows/s`)] : []),
            ...(b.recentCompletions.length ? ['recent:', ...b.recentCompletions.slice(0, 5).map((x) => `  #${x.slice} ${x.status} ${x.durationSeconds ?? '-'}s`)] : []),
            ...(b.stageWatch.length ? ['stage watch:', ...b.stageWatch.slice(-5).map((x) => `  ${x.event} ${x.message}`)] : []),
          ].join('\n') + '\n');
        });
      } catch (e) { fail(e); }
    });

  slices.command('reconcile').description('per-slice source COUNT(*) (AS OF SCN on Oracle) vs target, with deltas')
    .addOption(runIdOpt())
    .option('--source-url <url>', 'Postgres source (Default: SLICES_SOURCE_URL / SOURCE_PG_*; Oracle: ORACLE_*)')
    .option('--source-engine <e>', 'oracle or postgres (Default: the run\'s)')
    .option('--target-url <url>', 'Postgres target to count (Default: SLICES_TARGET_URL)')
    .option('--target-lake <warehouse>', 'count the Tributary lake tables instead ("default" = TRIBUTARY_WAREHOUSE)')
    .option('--json', 'machine-readable JSON')
    .action(async (o: { runId?: string; sourceUrl?: string; sourceEngine?: string; targetUrl?: string; targetLake?: string; json?: boolean }) => {
      try {
        const runId = runIdOf(o)!;
        await withCli(async (ctx) => {
          const s = settingsFrom(ctx, { runId, sourceUrl: o.sourceUrl, sourceEngine: o.sourceEngine, targetUrl: o.targetUrl, targetLake: o.targetLake });
          const source = await openSource(s).catch((e) => { ctx.logger.warn(`source unreachable: ${(e as Error).message}`); return null; });
          const tpool = s.targetUrl && !s.targetLake ? createPool(s.targetUrl, { max: 2 }) : null;
          let target: ReconcileTarget = tpool ? { kind: 'postgres', pool: tpool } : null;
          if (s.targetLake) {
            const { lakeCounter } = await import('./run/lake-writer');
            target = { kind: 'lake', count: lakeCounter(ctx.pool, s.targetLake === 'default' ? ctx.env.warehouse : s.targetLake, ctx.env.s3) };
          }
          try {
            const r = await reconcileRun(ctx.pool, runId, { source, engine: s.sourceEngine, target });
            if (o.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
            else {
              const lines = [`reconcile run ${runId} (${r.engine}${r.anchored ? `, AS OF SCN ${r.anchoredAt}` : ', live counts'})`];
              for (const x of r.slices) lines.push(`  slice ${x.slice} [${x.status}] source ${x.sourceCount ?? '?'} target ${x.targetCount ?? '?'} delta ${x.delta ?? '?'}${x.note ? ` (${x.note})` : ''}`);
              for (const x of r.slices) if (x.sourceCount === null) lines.push(`  -- source SQL slice ${x.slice}: ${x.sourceSql}`);
              for (const x of r.slices) if (x.targetSql && x.targetCount === null) lines.push(`  -- target SQL slice ${x.slice}: ${x.targetSql}`);
              for (const t of r.targets) lines.push(`  target ${t.table}: source sum ${t.sourceSum ?? '?'} target ${t.targetCount ?? '?'} delta ${t.delta ?? '?'}   (${t.sql})`);
              lines.push(`  total: source ${r.total.source ?? '?'} target ${r.total.target ?? '?'} delta ${r.total.delta ?? '?'}`);
              process.stdout.write(lines.join('\n') + '\n');
            }
            if (r.total.delta !== null && r.total.delta !== 0) process.exitCode = EXIT.failures;
          } finally { await source?.close().catch(() => {}); await tpool?.end().catch(() => {}); }
        });
      } catch (e) { fail(e); }
    });

  slices.command('setup').description('check connectivity to Striim, the source and the state tables; --interactive prompts for them')
    .option('--interactive', 'wizard: prompt for each setting, re-prompting bad values')
    .option('--executor <kind>', 'striim or native (Default: striim)')
    .option('--source-url <url>', 'Postgres source URL')
    .option('--target-url <url>', 'Postgres target URL')
    .option('--json', 'machine-readable JSON')
    .action(async (o: { interactive?: boolean; executor?: string; sourceUrl?: string; targetUrl?: string; json?: boolean }) => {
      try {
        let envOverride: Record<string, string> = {};
        if (o.interactive) {
          envOverride = await setupWizard(process.env);
          Object.assign(process.env, envOverride);
        }
        await withCli(async (ctx) => {
          const s = settingsFrom(ctx, { runId: runIdOf({}, false) ?? 1, executor: o.executor, sourceUrl: o.sourceUrl, targetUrl: o.targetUrl });
          const checks = await checkSetup(ctx.pool, s);
          if (o.json) process.stdout.write(JSON.stringify({ checks }, null, 2) + '\n');
          else {
            for (const c of checks) process.stdout.write(`${c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}\n`);
            if (o.interactive) process.stdout.write(['# export these to keep them:', ...Object.entries(envOverride).map(([k, v]) => `export ${k}=${JSON.stringify(/PASSWORD|PWD/.test(k) ? '***' : v)}`)].join('\n') + '\n');
          }
          if (checks.some((c) => !c.ok)) process.exitCode = EXIT.failures;
        });
      } catch (e) { fail(e); }
    });

  slices.command('striim-emulator').description("serve an emulator of Striim's REST API that really copies Postgres rows (tests, demos)")
    .option('--port <n>', 'port (Default: 9080)')
    .option('--host <h>', 'interface (Default: 127.0.0.1)')
    .option('--user <u>', 'accepted user (Default: admin)')
    .option('--password <p>', 'its password (Default: admin)')
    .option('--token-ttl-seconds <s>', 'token lifetime; 0 = never expires (Default: 0)')
    .option('--source-url <url>', 'Postgres behind the Source* property variables')
    .option('--target-url <url>', 'Postgres behind the Target* property variables')
    .option('--fail-deploy <regex>', 'fail DEPLOY of apps whose full name matches')
    .option('--never-quiesce <regex>', 'matching apps never quiesce')
    .option('--die-halfway <regex>', 'matching apps die half-way (once)')
    .option('--batch-delay-ms <ms>', 'pause after each written batch (Default: 0)')
    .action(async (o: { port?: string; host?: string; user?: string; password?: string; tokenTtlSeconds?: string; sourceUrl?: string; targetUrl?: string; failDeploy?: string; neverQuiesce?: string; dieHalfway?: string; batchDelayMs?: string }) => {
      try {
        const port = o.port === undefined ? 9080 : Number(o.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`slices: --port must be an integer 0-65535, got '${o.port}'`);
        const ttl = o.tokenTtlSeconds === undefined ? 0 : Number(o.tokenTtlSeconds);
        if (!(ttl >= 0)) throw new UsageError(`slices: --token-ttl-seconds must be >= 0, got '${o.tokenTtlSeconds}'`);
        const re = (flag: string, v?: string) => { if (!v) return null; try { return new RegExp(v); } catch { throw new UsageError(`slices: ${flag} is not a valid regular expression`); } };
        const emu = await startStriimEmulator({
          port, host: o.host, users: { [o.user ?? 'admin']: o.password ?? 'admin' }, tokenTtlMs: ttl * 1000,
          sourceUrl: o.sourceUrl, targetUrl: o.targetUrl,
          faults: { failDeploy: re('--fail-deploy', o.failDeploy), neverQuiesce: re('--never-quiesce', o.neverQuiesce), dieHalfway: re('--die-halfway', o.dieHalfway), batchDelayMs: o.batchDelayMs ? Number(o.batchDelayMs) : 0 },
        });
        process.stdout.write(`striim emulator listening on ${emu.url} (POST /security/authenticate, POST /api/v2/tungsten)\n`);
        await new Promise<void>((resolve) => { process.once('SIGINT', () => resolve()); process.once('SIGTERM', () => resolve()); });
        await emu.close();
      } catch (e) { fail(e); }
    });

  registerPlanningCommands(slices);
}

function formatStatus(st: Awaited<ReturnType<typeof getStatus>>, o: { rows?: boolean; failed?: boolean }): string {
  if ('runs' in st && st.runs) {
    if (!st.runs.length) return 'no runs';
    return st.runs.map((r: Record<string, unknown>) => `run ${r.run_id} [${r.executor}] ${r.verdict ?? 'in progress'}  ${Object.entries((r.counts as Record<string, number>) ?? {}).map(([k, v]) => `${k} ${v}`).join('  ')}  current rows ${r.current_rows}${r.watermark_value ? `  ${r.watermark_label} ${r.watermark_value}` : ''}`).join('\n');
  }
  const s = st as Extract<typeof st, { found: boolean }> & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (!s.found) return `run ${s.runId}: not found`;
  const lines = [
    `run ${s.runId} [${s.executor}] ${s.running ? 'RUNNING' : s.verdict ?? 'not finished'}  ${s.counts.COMPLETED}/${s.counts.total} COMPLETED`,
    Object.entries(s.counts).filter(([k]) => k !== 'total').map(([k, v]) => `  ${k.padEnd(22)} ${v}`).join('\n'),
  ];
  if (s.watermark) lines.push(`  watermark [${s.watermark.label}] ${s.watermark.value}`);
  if (s.api.retries || s.api.reauths) lines.push(`  Striim API retries ${s.api.retries}, re-authentications ${s.api.reauths}`);
  if (!o.failed && s.inFlight.length) lines.push('in flight:', ...s.inFlight.map((x: any) => `  #${x.slice} ${x.namespace ?? ''} ${x.target} since ${x.started?.toISOString?.() ?? x.started}`)); // eslint-disable-line @typescript-eslint/no-explicit-any
  if (s.failed.length) lines.push('failed:', ...s.failed.map((x: any) => `  #${x.slice} ${x.status} attempts ${x.attempts}: ${x.notes ?? ''}`)); // eslint-disable-line @typescript-eslint/no-explicit-any
  if (o.rows && s.rows) lines.push('rows:', ...s.rows.map((x: any) => `  #${x.slice} ${x.status.padEnd(20)} ${x.target} ${x.namespace ?? ''} attempts ${x.attempts} rows ${x.rowsWritten ?? '-'}  ${x.query}`)); // eslint-disable-line @typescript-eslint/no-explicit-any
  return lines.join('\n');
}
