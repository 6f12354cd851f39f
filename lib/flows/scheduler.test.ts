// The scheduler across processes: two worker processes against one database
// and a flow firing every minute (on a clock 20× faster than the real one,
// so three cron minutes take nine seconds; fire times are still real cron
// minutes in the flow's zone). Exactly one run per fire; after kill -9 of the
// leader the other process takes over and fires the next one.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { createFlow, listFlowRuns } from './index';
import { parseEnv } from '../config/env';
import { createJobRegistry, type JobCatalog } from '../jobs';
import { jobDefinitions } from '../../workers/jobs';
import { waitFor as pollUntil } from '../testing/wait-for';

const catalog: JobCatalog = { jobs: createJobRegistry(jobDefinitions), env: parseEnv({} as NodeJS.ProcessEnv) };

const SCALE = 20;
let db: TestDatabase;
let dataDir: string;
const children: { p: ChildProcess; out: string }[] = [];

function spawnWorker(origin: number) {
  const p = spawn(process.execPath, ['--import', 'tsx', 'lib/testing/flows-scheduler-child.ts', db.url, String(origin), String(SCALE), dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  const c = { p, out: '' };
  p.stdout!.on('data', (d) => { c.out += String(d); });
  p.stderr!.on('data', (d) => { c.out += String(d); });
  children.push(c);
  return c;
}
/** The shared deadline-bounded wait, its failure carrying what the children printed. */
const waitFor = <T>(what: string, fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 180_000): Promise<T> =>
  pollUntil(what, fn, ms).catch((e: Error) => { throw new Error(`${e.message}; children said: ${children.map((c) => c.out).join(' | ')}`); });

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-sched-'));
});
afterAll(async () => {
  // Every child gone before the database is dropped (a live one holds connections to it).
  await Promise.all(children.filter((c) => c.p.exitCode === null && c.p.signalCode === null)
    .map((c) => new Promise<void>((r) => { c.p.once('exit', () => r()); c.p.kill('SIGKILL'); })));
  await db.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('scheduler across two worker processes', () => {
  it('fires exactly one run per fire, and survives kill -9 of the leader', async () => {
    const f = await createFlow(db.pool, catalog, { name: 'every-minute', cron: '* * * * *', timezone: 'America/New_York', nodes: [{ id: 'check', kind: 'system.check' }] });
    const origin = Date.now();
    const a = spawnWorker(origin);
    const b = spawnWorker(origin);
    await waitFor('both workers', () => a.out.includes('READY') && b.out.includes('READY'));
    const leader = await waitFor('a leader', () => (a.out.includes('LEADER') ? a : b.out.includes('LEADER') ? b : null));
    const other = leader === a ? b : a;
    expect(a.out.includes('LEADER') && b.out.includes('LEADER')).toBe(false);

    const scheduledRuns = async () => (await listFlowRuns(db.pool, { flowId: f.id })).filter((r) => r.trigger === 'schedule').reverse();
    const three = await waitFor('three fires', async () => { const r = await scheduledRuns(); return r.length >= 3 && r; }, 180_000);
    const fires = three.slice(0, 3).map((r) => new Date(r.scheduledFor!).getTime());
    // Whole cron minutes, one minute apart, each exactly once.
    for (const t of fires) expect(t % 60_000).toBe(0);
    expect(fires[1] - fires[0]).toBe(60_000);
    expect(fires[2] - fires[1]).toBe(60_000);
    const dup = await db.pool.query('select scheduled_for, count(*)::int n from flow_runs where flow_id = $1 group by 1 having count(*) > 1', [f.id]);
    expect(dup.rows).toEqual([]);
    await waitFor('the first three runs to finish', async () => {
      const r = await scheduledRuns();
      return r.slice(0, 3).every((x) => x.status === 'succeeded' || x.status === 'skipped');
    }, 180_000);

    // kill -9 the leader: the other takes the lock and the fires go on.
    const lastBefore = Math.max(...(await scheduledRuns()).map((r) => new Date(r.scheduledFor!).getTime()));
    leader.p.kill('SIGKILL');
    await waitFor('the other worker to lead', () => other.out.includes('LEADER'), 180_000);
    const after = await waitFor('a fire after the kill', async () => {
      const r = await scheduledRuns();
      return r.filter((x) => new Date(x.scheduledFor!).getTime() > lastBefore).length >= 2 && r;
    }, 180_000);
    const times = after.map((r) => new Date(r.scheduledFor!).getTime()).sort((x, y) => x - y);
    // No fire lost or doubled across the takeover: consecutive minutes throughout.
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(60_000);
    const dup2 = await db.pool.query('select scheduled_for from flow_runs where flow_id = $1 group by 1 having count(*) > 1', [f.id]);
    expect(dup2.rows).toEqual([]);
    // Every run, including one the killed worker was driving, is brought to an end by the survivor.
    await waitFor('every run to end', async () => {
      const r = await db.pool.query(`select count(*)::int n from flow_runs where flow_id = $1 and status in ('queued', 'running') and scheduled_for <= $2`, [f.id, new Date(times[times.length - 1])]);
      return r.rows[0].n === 0;
    }, 180_000);
    other.p.kill('SIGTERM');
    await new Promise<void>((r) => other.p.once('exit', () => r()));
  }, 15 * 60_000);
});
