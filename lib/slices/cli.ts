import { setTimeout as sleep } from 'node:timers/promises';
import { Option, type Command } from 'commander';
import { parseCliSettings, type CliEdge } from '../cli/context';
import { recordCliRun } from '../jobs/record-cli-run';
import { processEnvironment, type Env } from '../config/env';
import { AppError, exitCodeFor } from '../errors';
import { cliContext, urlConnections, type UrlFlags } from './cli-support';
import { parseFlags } from './execute/context';
import { executeBoard, executeClear, executeReconcile, executeReset, executeStatus } from './execute/manage';
import { executeRun, settingsOf } from './execute/run';
import { BoardRequest, ClearRequest, ReconcileRequest, ResetRequest, RunRequest, StatusRequest } from './requests';
import { getStatus, readLogs } from './run/manage';
import { checkSetup, setupWizard } from './run/setup';
import { startStriimEmulator } from './testing/striim-emulator';
// probe | split | assort (the planning half of the engine) hang under the same `slices` command.
import { registerPlanningCommands } from './planning/cli';

/** Exit codes of `tributary slices …`. */
export const EXIT = { ok: 0, failures: 1, usage: 2, refused: 3, interrupted: 130 } as const;

/**
 * The exit code of a failed command, chosen by the error's code (`exitCodeFor`:
 * usage/validation → 2, conflict such as a held run lock or the fresh-run
 * guard → 3); anything else is the documented 1.
 */
function fail(e: unknown): never {
  const code = exitCodeFor(e);
  process.exitCode = code === EXIT.usage || code === EXIT.refused ? code : process.exitCode || EXIT.failures;
  throw e;
}

/** Every command's one error path: the exit code from the error's code (`fail`), the error to the CLI's printer. */
function guarded<A extends unknown[]>(command: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try { await command(...args); } catch (e) { fail(e); }
  };
}

const runIdOpt = () => new Option('--run-id <n>', 'run id (Default: UNIQUE_RUN_ID)');

/** `--run-id`, else UNIQUE_RUN_ID. */
function withRunId<T extends object>(o: T & { runId?: unknown }, env: Env, required = true): T & { runId?: unknown } {
  const runId = o.runId ?? env.UNIQUE_RUN_ID;
  if (runId === undefined && required) throw new AppError('usage', 'slices: --run-id is required (or UNIQUE_RUN_ID)', { field: '--run-id' });
  return { ...o, runId };
}

const striimConnectionOpt = () => new Option('--striim-connection <name>', 'Striim connection (kind striim) (Default: env:striim, from STRIIM_*)');

function addRunOptions(c: Command): Command {
  return c
    .addOption(runIdOpt())
    .option('--query-file <file>', 'queryfile (SQL|TARGET per line); needed on a fresh run')
    .option('--query-file-text <text>', 'the queryfile inline, instead of --query-file (what a slices.run job may carry)')
    .option('--executor <kind>', 'striim (one Striim app per slice) or native (Tributary copies) (Default: striim)')
    .option('--concurrency <n>', 'slices in flight, CONCURRENT_APPS_MAX (Default: 5)')
    .option('--monitor-interval <s>', 'mon poll interval in seconds, APP_MONITOR_INTERVAL_SECONDS (Default: 15 DEV / 60 PROD)')
    .option('--deploy-wait <s>', 'Striim: pause between deploys in seconds, DEPLOY_WAIT_TIME_SECONDS (Default: 20 DEV / 120 PROD; native: 0)')
    .option('--stall-timeout <s>', 'fail a slice RUNNING longer than this, SLICE_MAX_RUNTIME_SECONDS; 0 = off (Default: 0)')
    .option('--max-attempts <n>', 'attempts before a slice is QUARANTINED, SLICE_MAX_ATTEMPTS (Default: 3)')
    .option('--no-retry-failed', 'do not re-dispatch FAILED slices within this run (SLICE_RETRY_IN_RUN=0)')
    .option('--retry-delay <s>', 'wait before re-dispatching a failed slice, doubled per attempt, SLICE_RETRY_DELAY_SECONDS (Default: 30)')
    .option('--deployment-group <g>', 'Striim deployment group, DEPLOYMENT_GROUP_TARGET (Default: default)')
    .option('--template <file>', 'TQL template, SOURCE_TQL_FILE (Default: built-in admin.SW.tql); stored with the run')
    .option('--template-text <tql>', 'the TQL template inline, instead of --template')
    .option('--log-dir <dir>', 'folder of the watermark sidecar (Default: <data>/slices/logging)')
    .option('--source-engine <e>', 'oracle or postgres, SOURCE_DB_TYPE')
    .option('--target-engine <e>', 'oracle or postgres, TARGET_DB_TYPE (Default: the source engine)')
    .option('--connection <name>', "source defined in Tributary's connections (Default: env:source, from SOURCE_* / ORACLE_* / SLICES_SOURCE_URL)")
    .option('--source-url <url>', 'Postgres source (watermark, native reads, reconcile), SLICES_SOURCE_URL; local use only, never stored')
    .option('--target-connection <name>', 'Postgres target connection (native writes, reconcile)')
    .option('--target-url <url>', 'Postgres target (native writes, reconcile), SLICES_TARGET_URL; local use only, never stored')
    .option('--target-lake <warehouse>', 'native executor: merge into the Tributary lake (file:// warehouse; "default" = TRIBUTARY_WAREHOUSE)')
    .option('--merge-keys <cols>', 'lake merge key columns, comma-separated')
    .option('--batch-rows <n>', 'native: rows per upsert batch, NATIVE_BATCH_ROWS (Default: 50000)')
    .option('--no-snapshot', 'native: do not share one exported snapshot across slices')
    .option('--force-fresh', 'start fresh even if the run had rows (FORCE_FRESH=1)')
    .addOption(striimConnectionOpt())
    .option('--striim-url <url>', 'Striim base URL, with the STRIIM_ADMIN_* credentials; local use only (Default: STRIIM_URL_PREFIX + STRIIM_NODE)')
    .option('--striim-retries <n>', 'retries of Striim network errors and 5xx, STRIIM_API_RETRIES (Default: 5)')
    .option('--backoff-base <ms>', 'first Striim retry delay in ms, STRIIM_BACKOFF_BASE_MS (Default: 1000)')
    .option('--backoff-max <ms>', 'Striim retry delay ceiling in ms, STRIIM_BACKOFF_MAX_MS (Default: 30000)');
}

type Flags = Record<string, unknown>;

/** `tributary slices …`: run | status | reset | clear | logs | board | reconcile | setup | striim-emulator (+ probe | split | assort). */
export function registerSlicesCommands(program: Command, cli: CliEdge): void {
  const slices = program.command('slices').description('parallel initial loads: one Striim app (or native copier) per slice');

  addRunOptions(slices.command('run').description('register (fresh) or resume a run and drive its slices to completion'))
    .action(guarded(runCommand.bind(null, cli)));

  slices.command('status').description('run progress: counts by status, in-flight and failed slices')
    .addOption(runIdOpt())
    .option('--all-runs', 'every run in the state table')
    .option('--failed', 'only FAILED / QUARANTINED slices')
    .option('--json', 'machine-readable JSON')
    .option('--rows', 'individual slice rows')
    .action(guarded(statusCommand.bind(null, cli)));

  slices.command('reset').description('re-queue FAILED slices as NEW so the next run retries them')
    .addOption(runIdOpt())
    .option('--include-faileddrop', 'also re-queue COMPLETED-FAILEDDROP slices')
    .option('--include-quarantined', 'also re-queue QUARANTINED slices (their attempt counter restarts)')
    .option('--with-striim-cleanup', "stop/undeploy/drop the run's leftover ILA_ apps and namespaces first")
    .addOption(striimConnectionOpt())
    .action(guarded(resetCommand.bind(null, cli)));

  slices.command('clear').description('retire a run from the active view (history kept); --hard --yes deletes it')
    .addOption(runIdOpt())
    .option('--hard', "hard-delete the run's rows (needs --yes)")
    .option('--yes', 'confirm --hard')
    .option('--with-striim-cleanup', "also drop the run's leftover ILA_ apps and namespaces")
    .addOption(striimConnectionOpt())
    .action(guarded(clearCommand.bind(null, cli)));

  slices.command('logs').description("the run's log")
    .addOption(runIdOpt())
    .option('--lines <n>', 'last N lines (Default: 50)')
    .option('--follow', 'stream new lines (like tail -f) until Ctrl+C')
    .option('--errors', 'only ERROR lines')
    .action(guarded(logsCommand.bind(null, cli)));

  slices.command('board').description('the live board feed')
    .addOption(runIdOpt())
    .option('--json', 'emit the JSON feed')
    .option('--no-striim', 'do not ask Striim for live rates')
    .addOption(striimConnectionOpt())
    .action(guarded(boardCommand.bind(null, cli)));

  slices.command('reconcile').description('per-slice source COUNT(*) (AS OF SCN on Oracle) vs target, with deltas')
    .addOption(runIdOpt())
    .option('--connection <name>', "source defined in Tributary's connections (Default: env:source)")
    .option('--source-url <url>', 'Postgres source (Default: SLICES_SOURCE_URL / SOURCE_PG_*; Oracle: ORACLE_*); local use only')
    .option('--source-engine <e>', 'oracle or postgres (Default: the run\'s)')
    .option('--target-connection <name>', 'Postgres target connection to count')
    .option('--target-url <url>', 'Postgres target to count (Default: SLICES_TARGET_URL); local use only')
    .option('--target-lake <warehouse>', 'count the Tributary lake tables instead ("default" = TRIBUTARY_WAREHOUSE)')
    .option('--json', 'machine-readable JSON')
    .action(guarded(reconcileCommand.bind(null, cli)));

  slices.command('setup').description('check connectivity to Striim, the source and the state tables; --interactive prompts for them')
    .option('--interactive', 'wizard: prompt for each setting, re-prompting bad values')
    .option('--executor <kind>', 'striim or native (Default: striim)')
    .option('--source-url <url>', 'Postgres source URL')
    .option('--target-url <url>', 'Postgres target URL')
    .option('--json', 'machine-readable JSON')
    .action(guarded(setupCommand.bind(null, cli)));

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
    .action(guarded(striimEmulatorCommand.bind(null, cli)));

  registerPlanningCommands(slices, cli);
}

/** `tributary slices run` */
async function runCommand(cli: CliEdge, o: Flags & UrlFlags): Promise<void> {
  const env = cli.settings;
  const { names, transient } = urlConnections(o, env);
  const req = parseFlags(RunRequest, { ...withRunId(o, env), ...names });
  await cli.withCli(async (ctx) => {
    const r = await recordCliRun(ctx.pool, { kind: 'slices.run', params: req, logger: ctx.logger, level: ctx.env.LOG_LEVEL },
      (run) => executeRun(cliContext({ ...ctx, logger: run.logger }, transient), req),
      (x) => ({
        result: { verdict: x.verdict, mode: x.mode, counts: x.counts, watermark: x.watermark, apiRetries: x.apiRetries, apiReauths: x.apiReauths },
        error: x.verdict === 'FINISHED WITH FAILURES' ? `slices: run ${req.runId} finished with failures` : null,
      }));
    process.exitCode = r.verdict === 'FINISHED WITH FAILURES' ? EXIT.failures : r.verdict === 'INTERRUPTED' ? EXIT.interrupted : EXIT.ok;
  });
}

/** `tributary slices status` */
async function statusCommand(cli: CliEdge, o: Flags & { json?: boolean; rows?: boolean; failed?: boolean }): Promise<void> {
  const req = parseFlags(StatusRequest, o);
  await cli.withCli(async (ctx) => {
    const st = await executeStatus(cliContext(ctx), req);
    if (o.json) { process.stdout.write(JSON.stringify(st, null, 2) + '\n'); return; }
    process.stdout.write(formatStatus(st, o) + '\n');
  });
}

/** `tributary slices reset` */
async function resetCommand(cli: CliEdge, o: Flags & { withStriimCleanup?: boolean }): Promise<void> {
  const req = parseFlags(ResetRequest, withRunId(o, cli.settings));
  await cli.withCli(async (ctx) => {
    const r = await recordCliRun(ctx.pool, { kind: 'slices.reset', params: req, logger: ctx.logger, level: ctx.env.LOG_LEVEL }, (run) =>
      executeReset(cliContext({ ...ctx, logger: run.logger }), req));
    process.stdout.write(`run ${req.runId}: ${r.requeued} slice(s) re-queued as NEW${o.withStriimCleanup ? `; Striim cleanup dropped ${r.cleaned.length} object(s)` : ''}\n`);
  });
}

/** `tributary slices clear` */
async function clearCommand(cli: CliEdge, o: Flags & { hard?: boolean; yes?: boolean; withStriimCleanup?: boolean }): Promise<void> {
  const req = parseFlags(ClearRequest, withRunId(o, cli.settings));
  if (o.hard && !o.yes) throw new AppError('usage', 'slices: --hard deletes the run\'s rows: add --yes to confirm', { field: '--yes' });
  await cli.withCli(async (ctx) => {
    const r = await recordCliRun(ctx.pool, { kind: 'slices.clear', params: req, logger: ctx.logger, level: ctx.env.LOG_LEVEL }, (run) =>
      executeClear(cliContext({ ...ctx, logger: run.logger }), req));
    process.stdout.write(`run ${req.runId}: ${r.rows} row(s) ${o.hard ? 'deleted' : 'retired (iscurrentrow = false)'}${o.withStriimCleanup ? `; Striim cleanup dropped ${r.cleaned.length} object(s)` : ''}\n`);
  });
}

/** `tributary slices logs` */
async function logsCommand(cli: CliEdge, o: { runId?: string; lines?: string; follow?: boolean; errors?: boolean }): Promise<void> {
  const { runId } = parseFlags(StatusRequest, withRunId(o, cli.settings));
  if (o.lines !== undefined && (!/^\d+$/.test(o.lines) || Number(o.lines) < 1)) throw new AppError('usage', `slices: --lines must be a positive integer (>= 1), got '${o.lines}'`, { field: '--lines' });
  const lines = o.lines === undefined ? 50 : Number(o.lines);
  await cli.withCli(async (ctx) => {
    let last = 0;
    const show = async (n: number) => {
      for (const l of await readLogs(ctx.pool, runId!, { lines: n, errors: o.errors, afterId: last })) {
        process.stdout.write(`${l.ts.toISOString()} ${l.level.toUpperCase().padEnd(5)} ${l.slice !== null ? `[slice ${l.slice}] ` : ''}${l.message}\n`);
        last = l.id;
      }
    };
    await show(lines);
    while (o.follow && !ctx.signal.aborted) {
      // Ctrl+C ends the wait (and the loop) at once.
      await sleep(1000, undefined, { signal: ctx.signal }).catch(() => undefined);
      await show(10_000);
    }
  });
}

/** `tributary slices board` */
async function boardCommand(cli: CliEdge, o: Flags & { json?: boolean }): Promise<void> {
  const req = parseFlags(BoardRequest, withRunId(o, cli.settings));
  await cli.withCli(async (ctx) => {
    const b = await executeBoard(cliContext(ctx), req);
    if (o.json) { process.stdout.write(JSON.stringify(b, null, 2) + '\n'); return; }
    const width = 40;
    const filled = Math.round((b.percentComplete / 100) * width);
    process.stdout.write([
      `run ${req.runId} (${b.executor ?? '?'})  ${b.active ? 'RUNNING' : b.verdict ?? 'idle'}  ${b.percentComplete}%  [${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`,
      Object.entries(b.counts).map(([k, v]) => `${k} ${v}`).join('  '),
      ...(b.inFlight.length ? ['in flight:', ...b.inFlight.map((x) => `  #${x.slice} ${x.target} ${x.namespace ?? ''} ${x.elapsedSeconds}s ${x.rowsPerSecond ?? '-'} rows/s`)] : []),
      ...(b.recentCompletions.length ? ['recent:', ...b.recentCompletions.slice(0, 5).map((x) => `  #${x.slice} ${x.status} ${x.durationSeconds ?? '-'}s`)] : []),
      ...(b.stageWatch.length ? ['stage watch:', ...b.stageWatch.slice(-5).map((x) => `  ${x.event} ${x.message}`)] : []),
    ].join('\n') + '\n');
  });
}

/** `tributary slices reconcile` */
async function reconcileCommand(cli: CliEdge, o: Flags & UrlFlags & { json?: boolean }): Promise<void> {
  const env = cli.settings;
  const { names, transient } = urlConnections(o, env);
  const req = parseFlags(ReconcileRequest, { ...withRunId(o, env), ...names });
  await cli.withCli(async (ctx) => {
    const r = await recordCliRun(ctx.pool, { kind: 'slices.reconcile', params: req, logger: ctx.logger, level: ctx.env.LOG_LEVEL }, (run) =>
      executeReconcile(cliContext({ ...ctx, logger: run.logger }, transient), req));
    if (o.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
    else {
      const lines = [`reconcile run ${req.runId} (${r.engine}${r.anchored ? `, AS OF SCN ${r.anchoredAt}` : ', live counts'})`];
      for (const x of r.slices) lines.push(`  slice ${x.slice} [${x.status}] source ${x.sourceCount ?? '?'} target ${x.targetCount ?? '?'} delta ${x.delta ?? '?'}${x.note ? ` (${x.note})` : ''}`);
      for (const x of r.slices) if (x.sourceCount === null) lines.push(`  -- source SQL slice ${x.slice}: ${x.sourceSql}`);
      for (const x of r.slices) if (x.targetSql && x.targetCount === null) lines.push(`  -- target SQL slice ${x.slice}: ${x.targetSql}`);
      for (const t of r.targets) lines.push(`  target ${t.table}: source sum ${t.sourceSum ?? '?'} target ${t.targetCount ?? '?'} delta ${t.delta ?? '?'}   (${t.sql})`);
      lines.push(`  total: source ${r.total.source ?? '?'} target ${r.total.target ?? '?'} delta ${r.total.delta ?? '?'}`);
      process.stdout.write(lines.join('\n') + '\n');
    }
    if (r.total.delta !== null && r.total.delta !== 0) process.exitCode = EXIT.failures;
  });
}

/** `tributary slices setup` */
async function setupCommand(cli: CliEdge, o: { interactive?: boolean; executor?: string; sourceUrl?: string; targetUrl?: string; json?: boolean }): Promise<void> {
  // The wizard's answers are layered over the environment for this command only (never written to the
  // process environment); it offers the variables as the operator wrote them.
  const envOverride: Record<string, string> = o.interactive ? await setupWizard(processEnvironment()) : {};
  const env = o.interactive ? parseCliSettings(envOverride) : cli.settings;
  const { names, transient } = urlConnections(o, env);
  await cli.withCli(async (ctx) => {
    const sctx = cliContext(ctx, transient);
    const s = await settingsOf(sctx, { runId: env.UNIQUE_RUN_ID ?? 1, executor: parseFlags(RunRequest, { runId: 1, executor: o.executor }).executor, ...names });
    const checks = await checkSetup(ctx.pool, s);
    if (o.json) process.stdout.write(JSON.stringify({ checks }, null, 2) + '\n');
    else {
      for (const c of checks) process.stdout.write(`${c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}\n`);
      if (o.interactive) process.stdout.write(['# export these to keep them:', ...Object.entries(envOverride).map(([k, v]) => `export ${k}=${JSON.stringify(/PASSWORD|PWD/.test(k) ? '***' : v)}`)].join('\n') + '\n');
    }
    if (checks.some((c) => !c.ok)) process.exitCode = EXIT.failures;
  }, { settings: env });
}

/** `tributary slices striim-emulator` */
async function striimEmulatorCommand(cli: CliEdge, o: { port?: string; host?: string; user?: string; password?: string; tokenTtlSeconds?: string; sourceUrl?: string; targetUrl?: string; failDeploy?: string; neverQuiesce?: string; dieHalfway?: string; batchDelayMs?: string }): Promise<void> {
  const port = o.port === undefined ? 9080 : Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new AppError('usage', `slices: --port must be an integer 0-65535, got '${o.port}'`);
  const ttl = o.tokenTtlSeconds === undefined ? 0 : Number(o.tokenTtlSeconds);
  if (!(ttl >= 0)) throw new AppError('usage', `slices: --token-ttl-seconds must be >= 0, got '${o.tokenTtlSeconds}'`);
  const re = (flag: string, v?: string) => { if (!v) return null; try { return new RegExp(v); } catch { throw new AppError('usage', `slices: ${flag} is not a valid regular expression`); } };
  const emu = await startStriimEmulator({
    port, host: o.host, users: { [o.user ?? 'admin']: o.password ?? 'admin' }, tokenTtlMs: ttl * 1000,
    sourceUrl: o.sourceUrl, targetUrl: o.targetUrl,
    faults: { failDeploy: re('--fail-deploy', o.failDeploy), neverQuiesce: re('--never-quiesce', o.neverQuiesce), dieHalfway: re('--die-halfway', o.dieHalfway), batchDelayMs: o.batchDelayMs ? Number(o.batchDelayMs) : 0 },
  });
  process.stdout.write(`striim emulator listening on ${emu.url} (POST /security/authenticate, POST /api/v2/tungsten)\n`);
  await new Promise<void>((resolve) => { process.once('SIGINT', () => resolve()); process.once('SIGTERM', () => resolve()); });
  await emu.close();
}

/** The parsed environment as text, for the setup wizard's suggested answers. */
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
