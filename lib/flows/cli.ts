import fs from 'node:fs/promises';
import type { Command } from 'commander';
import type { CliEdge } from '../cli/context';
import { AppError } from '../errors';
import { listPipelines, runPipeline } from '../pipelines';
import { getJobRun } from '../jobs/runs';
import { parseIdempotencyKey, requestFingerprint, type IdempotencyRequest } from '../jobs/idempotency';
import { describeCron, formatInZone } from './schedule';
import { validateFlow } from './validate';
import { listFlows, mustGetFlow, setFlowEnabled } from './store';
import { getFlowRun, listFlowRuns, startFlowRun } from './runs';

const out = (s: string): void => { process.stdout.write(s + '\n'); };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `tributary flows list | show | run | pause | resume | validate FILE.json`
 * and `tributary pipelines list | run`. Runs are queued for the workers
 * (`npm start` or `tributary worker`); `--wait` follows one to its end.
 */
/** `--idempotency-key`: command-line keys share one scope (`cli`); the command and its argument are the request. */
function cliIdempotency(key: string | undefined, command: string): IdempotencyRequest | undefined {
  const k = parseIdempotencyKey(key, '--idempotency-key');
  return k ? { scope: 'cli', key: k, fingerprint: requestFingerprint('CLI', command, null) } : undefined;
}

export function registerFlowsCommands(program: Command, { withCli }: CliEdge): void {
  const flows = program.command('flows').description('DAG flows of pipelines and jobs, with cron schedules in time zones and alert mail');
  flows.command('list').description('List flows with their schedule, state and next fire')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => withCli(async (ctx) => {
      const list = await listFlows(ctx.pool);
      if (o.json) { out(JSON.stringify(list, null, 2)); return; }
      if (!list.length) { out('no flows'); return; }
      for (const f of list) {
        const last = (await listFlowRuns(ctx.pool, { flowId: f.id, limit: 1 }))[0];
        out([f.name, f.enabled ? 'enabled' : 'paused', f.cron ? `${f.cron} ${f.timezone}` : 'no schedule',
          f.nextFires[0] ? `next ${formatInZone(new Date(f.nextFires[0]), f.timezone)}` : '-',
          `${f.nodes.length} nodes`, last ? `last ${last.status}` : 'never run'].join('\t'));
      }
    }));
  flows.command('show').description('A flow: nodes, edges, schedule in words, next fires, recent runs')
    .argument('<flow>', 'name or id')
    .option('--json', 'machine-readable output (the definition, as `flows validate` takes it)')
    .action(async (ref: string, o: { json?: boolean }) => withCli(async (ctx) => {
      const f = await mustGetFlow(ctx.pool, ref);
      const runs = await listFlowRuns(ctx.pool, { flowId: f.id, limit: 10 });
      if (o.json) { out(JSON.stringify({ ...f, runs }, null, 2)); return; }
      out(`${f.name}${f.description ? ` — ${f.description}` : ''}`);
      out(`schedule: ${f.cron ? `${f.cron} in ${f.timezone} (${describeCron(f.cron)})` : 'none'}; ${f.enabled ? 'enabled' : 'paused'}; catch-up ${f.catchup}; overlap ${f.overlap}; parallel ${f.maxParallel}`);
      for (const t of f.nextFires) out(`  next: ${formatInZone(new Date(t), f.timezone)}  = ${t}`);
      out(`alerts: ${[f.alerts.onFailure && 'on failure', f.alerts.onSuccess && 'on success', f.alerts.longRunningMinutes && `running > ${f.alerts.longRunningMinutes} min`].filter(Boolean).join(', ') || 'off'} → ${f.alerts.recipients.join(', ') || 'nobody'}`);
      out('nodes:');
      for (const n of f.nodes) {
        const after = f.edges.filter((e) => e.to === n.id).map((e) => e.from);
        out(`  ${n.id}\t${n.pipeline ? `pipeline ${n.pipelineName ?? n.pipeline}` : `${n.kind} ${JSON.stringify(n.params ?? {})}`}${after.length ? `\tafter ${after.join(', ')}` : ''}`);
      }
      out('runs:');
      if (!runs.length) out('  none');
      for (const r of runs) out(`  ${r.id}\t${r.status}\t${r.trigger}${r.scheduledFor ? ` ${r.scheduledFor}` : ''}\t${r.createdAt}${r.error ? `\t${r.error.slice(0, 120)}` : ''}`);
    }));
  flows.command('run').description('Start a run now (a worker runs it)')
    .argument('<flow>', 'name or id')
    .option('--wait', 'follow the run until it ends; exit 1 unless it succeeded')
    .option('--idempotency-key <key>', 'the same key again within 24 hours starts nothing and reports the first run (safe retries from cron or scripts)')
    .action(async (ref: string, o: { wait?: boolean; idempotencyKey?: string }) => withCli(async (ctx) => {
      const run = await startFlowRun(ctx.pool, ref, 'cli', { idempotency: cliIdempotency(o.idempotencyKey, `flows run ${ref}`) });
      out(run.replayed ? `flow run ${run.id} already started with this idempotency key (${run.status})` : `flow run ${run.id} queued`);
      if (!o.wait) return;
      const seen = new Map<string, string>();
      for (;;) {
        const r = (await getFlowRun(ctx.pool, run.id))!;
        for (const n of r.nodes) if (seen.get(n.nodeId) !== n.status) { seen.set(n.nodeId, n.status); out(`  ${n.nodeId}: ${n.status}${n.error && n.status !== 'succeeded' ? ` — ${n.error.slice(0, 200)}` : ''}`); }
        if (['succeeded', 'failed', 'cancelled'].includes(r.run.status)) {
          out(`flow run ${run.id} ${r.run.status}`);
          if (r.run.status !== 'succeeded') process.exitCode = 1;
          return;
        }
        if (ctx.signal.aborted) return;
        await sleep(1000);
      }
    }));
  flows.command('pause').description("Stop a flow's schedule firing").argument('<flow>', 'name or id')
    .action(async (ref: string) => withCli(async (ctx) => { const f = await setFlowEnabled(ctx.pool, ctx, ref, false); out(`${f.name} paused`); }));
  flows.command('resume').description("Let a flow's schedule fire again, from now on").argument('<flow>', 'name or id')
    .action(async (ref: string) => withCli(async (ctx) => {
      const f = await setFlowEnabled(ctx.pool, ctx, ref, true);
      out(`${f.name} resumed${f.nextFires[0] ? `; next fire ${formatInZone(new Date(f.nextFires[0]), f.timezone)}` : ''}`);
    }));
  flows.command('validate').description('Check a flow definition (JSON, as POST /api/v1/flows takes it) without saving it')
    .argument('<file>', 'FILE.json')
    .action(async (file: string) => {
      let input: unknown;
      try { input = JSON.parse(await fs.readFile(file, 'utf8')); } catch (e) {
        throw new AppError('usage', `flows: cannot read ${file}: ${(e as Error).message}`, { field: 'file' });
      }
      await withCli(async (ctx) => {
        const f = await validateFlow(ctx.pool, ctx, input);
        out(`${file}: valid flow '${f.name}' with ${f.nodes.length} nodes and ${f.edges.length} edges`);
        if (f.cron) out(`schedule: ${describeCron(f.cron)} (${f.timezone})`);
      });
    });

  const pipelines = program.command('pipelines').description('The pipeline library: saved job specs');
  pipelines.command('list').description('List saved pipelines with their command lines')
    .option('--tag <tag>', 'only pipelines with this tag')
    .option('--json', 'machine-readable output')
    .action(async (o: { tag?: string; json?: boolean }) => withCli(async (ctx) => {
      const list = await listPipelines(ctx.pool, ctx, { tag: o.tag });
      if (o.json) { out(JSON.stringify(list, null, 2)); return; }
      if (!list.length) { out('no pipelines'); return; }
      for (const p of list) out(`${p.name}\t${p.kind}\t${p.tags.join(',') || '-'}\t${p.command}`);
    }));
  pipelines.command('run').description('Run a saved pipeline now (a worker runs it)')
    .argument('<pipeline>', 'name or id')
    .option('--wait', 'follow the job until it ends; exit 1 unless it succeeded')
    .option('--idempotency-key <key>', 'the same key again within 24 hours starts nothing and reports the first job (safe retries from cron or scripts)')
    .action(async (ref: string, o: { wait?: boolean; idempotencyKey?: string }) => withCli(async (ctx) => {
      const r = await runPipeline(ctx.pool, ctx, ref, 'cli', { idempotency: cliIdempotency(o.idempotencyKey, `pipelines run ${ref}`) });
      out(r.replayed ? `job ${r.runId} (${r.pipeline.kind}) already started with this idempotency key` : `job ${r.runId} (${r.pipeline.kind}) queued`);
      if (!o.wait) return;
      for (;;) {
        const j = await getJobRun(ctx.pool, r.runId, { logLimit: 0 });
        if (j && ['succeeded', 'failed', 'cancelled'].includes(j.status)) {
          out(`job ${r.runId} ${j.status}${j.error ? `: ${j.error}` : ''}`);
          if (j.status !== 'succeeded') process.exitCode = 1;
          return;
        }
        if (ctx.signal.aborted) return;
        await sleep(1000);
      }
    }));
}
