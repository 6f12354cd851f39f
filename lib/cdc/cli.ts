import type { Command } from 'commander';
import type { CliContext, CliEdge } from '../cli/context';
import { parseRequest } from '../config/request';
import { AppError, exitCodeFor, isInputError } from '../errors';
import { createPgClient } from '../sources';
import { cdcTarget as targetOf, type CdcTarget } from './branch';
import { initialInSnapshot } from './cli-branch';
import { localPaths } from '../config/data-path';
import { parseLsn } from './lsn';
import { CDC_DEFAULTS, CdcRequest } from './request';
import { cdcNames, dropSlotAndPublication, slotInfo } from './setup';
import { setupBranch } from './setup-branch';
import { deleteBranchState, readBranchState, setBranchStatus } from './state';
import { runStream } from './stream';

const FLAGS = { branch: '--branch', namespace: '--namespace', tablesFile: '--tables-file', flushInterval: '--flush-interval', flushRows: '--flush-rows' };
const w = (x: string) => process.stdout.write(x + '\n');
const cdcTarget = (ctx: CliContext, r: CdcRequest): Promise<CdcTarget> => targetOf({ ...ctx, paths: localPaths, style: 'flags' }, r);

/** `tributary cdc …` flags → the request (the `cdc.stream` payload's schema); a bad value fails naming its flag. */
export function requestFromFlags(o: Record<string, unknown>): CdcRequest {
  const raw = Object.fromEntries(Object.entries(o).filter(([k, v]) => v !== undefined && k in FLAGS));
  return parseRequest(CdcRequest, raw, 'flags', FLAGS);
}

/** Flags → request, then the body with the CLI's context; bad input is one line on stderr and its exit code. */
function action(withCli: CliEdge['withCli'], body: (ctx: CliContext, r: CdcRequest, o: Record<string, unknown>) => Promise<void>) {
  return async (o: Record<string, unknown>) => {
    try {
      const r = requestFromFlags(o);
      await withCli((ctx) => body(ctx, r, o));
    } catch (e) {
      if (!isInputError(e) && !(e instanceof AppError && e.code === 'not_found')) throw e;
      process.stderr.write(`error: ${(e as Error).message}\n`);
      process.exitCode = exitCodeFor(e);
    }
  };
}

async function setup(ctx: CliContext, r: CdcRequest): Promise<void> {
  const t = await cdcTarget(ctx, r);
  const res = await setupBranch({
    pool: ctx.pool, lake: t.lake, branch: t.key, namespace: t.namespace, source: t.source, tables: t.tables, logger: ctx.logger,
    initialLoad: (snapshot) => initialInSnapshot(ctx, t, r, snapshot),
  });
  w(`branch ${t.key}: publication ${res.publication}, slot ${res.slot}; ${res.tables.length} tables loaded in the slot's snapshot; the stream starts at ${res.startLsn}`);
  w(`next: tributary cdc start --branch ${t.key}`);
}

async function start(ctx: CliContext, r: CdcRequest): Promise<void> {
  const t = await cdcTarget(ctx, r);
  w(`streaming branch ${t.key} (Ctrl+C or \`tributary cdc stop --branch ${t.key}\` stops after applying what arrived)`);
  const s = await runStream({
    pool: ctx.pool, lake: t.lake, branch: t.key, source: t.source, tables: t.tables, logger: ctx.logger, runId: `cdc-${t.key}`, signal: ctx.signal,
    flushIntervalMs: r.flushInterval ?? CDC_DEFAULTS.flushIntervalMs, flushRows: r.flushRows ?? CDC_DEFAULTS.flushRows,
    onFlush: (f) => w(`applied ${f.rows} changes up to ${f.lsn} (${f.tables.join(', ')})`),
  });
  w(`stopped: ${s.flushes} flushes, ${s.rows} changes, applied up to ${s.appliedLsn}`);
}

async function status(ctx: CliContext, r: CdcRequest, o: Record<string, unknown>): Promise<void> {
  const t = await cdcTarget(ctx, r);
  const st = await readBranchState(ctx.pool, t.key);
  const c = createPgClient(t.source);
  await c.connect();
  let slot: Awaited<ReturnType<typeof slotInfo>>;
  let current: string;
  try {
    slot = await slotInfo(c, st?.slot ?? cdcNames(t.key).slot);
    current = (await c.query(`SELECT pg_current_wal_lsn()::text AS l`)).rows[0].l;
  } finally { await c.end().catch(() => {}); }
  const out = {
    branch: t.key, status: st?.status ?? 'not set up', error: st?.error ?? null, slot: st?.slot ?? null, slotExists: !!slot, slotActive: slot?.active ?? false,
    lagBytes: slot?.lagBytes ?? null, retainedWalBytes: slot?.retainedBytes ?? null, sourceLsn: current, appliedLsn: st?.appliedLsn ?? null,
    appliedBytesBehind: st?.appliedLsn ? Number(parseLsn(current) - parseLsn(st.appliedLsn)) : null, lastCommitAt: st?.appliedAt?.toISOString() ?? null,
    rowsApplied: st?.rowsApplied ?? 0, owner: st?.owner ?? null,
  };
  if (o.json) { w(JSON.stringify(out, null, 2)); return; }
  for (const [k, v] of Object.entries(out)) w(`${k.padEnd(18)} ${v ?? '-'}`);
}

async function stop(ctx: CliContext, r: CdcRequest): Promise<void> {
  const st = await readBranchState(ctx.pool, r.branch);
  if (!st) throw new AppError('not_found', `cdc: --branch ${r.branch} is not set up for streaming`, { field: 'branch' });
  // the running stream reads its status at every flush interval and stops gracefully; the slot stays
  await setBranchStatus(ctx.pool, r.branch, 'stopped');
  w(`branch ${r.branch}: asked the stream to stop; the slot ${st.slot} is kept (the source holds WAL for it until \`cdc start\` or \`cdc drop\`)`);
}

async function drop(ctx: CliContext, r: CdcRequest, o: Record<string, unknown>): Promise<void> {
  if (!o.yes) throw new AppError('usage', `cdc: dropping the slot of branch ${r.branch} loses the stream's position: a later \`cdc setup\` re-snapshots the tables. Confirm with --yes`, { field: 'yes' });
  const t = await cdcTarget(ctx, r);
  const c = createPgClient(t.source);
  await c.connect();
  try { await dropSlotAndPublication(c, cdcNames(t.key)); } finally { await c.end().catch(() => {}); }
  await deleteBranchState(ctx.pool, t.key);
  w(`branch ${t.key}: slot and publication dropped; the lake keeps its rows`);
}

/** `tributary cdc setup|start|status|stop|drop --branch B`: streaming changes of PostgreSQL branches (lib/cdc). */
export function registerCdcCommands(program: Command, { withCli }: CliEdge): void {
  const cmd = program.command('cdc').description("Stream every change of PostgreSQL branches set to `cdc: log` from the write-ahead log into the lake");
  const common = (c: Command) => c.requiredOption('--branch <key>', 'the branch key').option('--namespace <ns>', `lake namespace (default: ${CDC_DEFAULTS.namespace})`)
    .option('--tables-file <path>', 'table definitions (default: $TRIBUTARY_TABLES_FILE or ./tables.json)');
  common(cmd.command('setup').description("Check the source (printing the SQL for what is missing), publish the branch's tables, create its slot and load them in the slot's snapshot"))
    .action(action(withCli, setup));
  common(cmd.command('start').description('Stream the branch in the foreground: apply changes every --flush-interval or --flush-rows, acknowledge after each lake commit'))
    .option('--flush-interval <duration>', 'apply at least this often (default: 10s)').option('--flush-rows <n>', `apply when this many changes wait (default: ${CDC_DEFAULTS.flushRows})`)
    .action(action(withCli, start));
  common(cmd.command('status').description('Slot lag in bytes, WAL the slot retains, last applied LSN and commit time')).option('--json', 'machine-readable output')
    .action(action(withCli, status));
  common(cmd.command('stop').description('Stop the running stream after its next flush; the slot is kept')).action(action(withCli, stop));
  common(cmd.command('drop').description('Drop the branch\'s slot and publication (asks for --yes)')).option('--yes', 'confirm').action(action(withCli, drop));
}
