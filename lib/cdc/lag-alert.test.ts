// The CDC lag alert end to end: a real source with wal_level=logical holding a slot, a real
// worker running mail.send, a real SMTP server (npm smtp-server). Passing the threshold mails
// exactly once (two leaders checking at once included), later checks send nothing while it holds,
// falling back under it mails one "recovered"; /metrics' tributary_cdc_lag_alert follows the state.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { startLogicalPostgres, type LogicalPostgres } from '../testing/logical-pg';
import { waitFor } from '../testing/wait-for';
import { parseEnv, type Env } from '../config/env';
import { silentLogger } from '../log';
import { createJobRegistry, startWorker, type JobCatalog, type WorkerHandle } from '../jobs';
import { createConnection } from '../connections';
import { startTestSmtpServer, type TestSmtpServer } from '../mail/test-smtp-server';
import { createMetricsRegistry } from '../metrics';
import { jobDefinitions } from '../../workers/jobs';
import { branchSources, cdcFigures } from './figures';
import { checkCdcLag } from './lag-alert';
import { recordBranchApplied, recordSetup, setBranchStatus } from './state';

const SECRET = 'cdc-lag-alert-test-secret-0123456789';
const THRESHOLD = 256 * 1024;
const ALERTS = { recipients: ['dba@example.com'], smtp_connection: 'alerts-relay' };
const jobs = createJobRegistry(jobDefinitions);
let server: LogicalPostgres;
let db: TestDatabase;
let src: pg.Client;
let dir: string;
let env: Env;
let catalog: JobCatalog;
let worker: WorkerHandle;
let smtp: TestSmtpServer;

const check = () => checkCdcLag({ pool: db.pool, logger: silentLogger, sourceOf: branchSources({ pool: db.pool, env }), thresholdBytes: THRESHOLD, alerts: ALERTS, catalog, publicUrl: 'http://panel.test' });
const mailJobs = async () => (await db.pool.query(`SELECT id, status FROM job_runs WHERE kind = 'mail.send' AND created_by = 'cdc' ORDER BY created_at`)).rows;
const retained = async () => Number((await src.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint AS n FROM pg_replication_slots WHERE slot_name = 'tributary_live'`)).rows[0].n);
async function alertGauge(): Promise<number | undefined> {
  const text = await createMetricsRegistry({ pool: db.pool, schedulerLockKey: 1, cdc: () => cdcFigures(db.pool, branchSources({ pool: db.pool, env })) }).metrics();
  const fam = (parsePrometheusTextFormat(text) as { name: string; metrics: { labels?: Record<string, string>; value?: string }[] }[]).find((f) => f.name === 'tributary_cdc_lag_alert');
  const v = fam?.metrics.find((m) => m.labels?.branch === 'live')?.value;
  return v === undefined ? undefined : Number(v);
}

beforeAll(async () => {
  server = await startLogicalPostgres();
  db = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-cdc-lag-'));
  smtp = await startTestSmtpServer();
  env = parseEnv({ TRIBUTARY_DATA_DIR: dir, DATABASE_URL: db.url, TRIBUTARY_SECRET: SECRET } as unknown as NodeJS.ProcessEnv);
  catalog = { jobs, env };
  src = new pg.Client({ connectionString: server.url });
  await src.connect();
  const keys = { secret: SECRET, dataDir: dir };
  await createConnection({ pool: db.pool, keys }, { name: 'alerts-relay', kind: 'smtp', params: { host: '127.0.0.1', port: smtp.port, tls: 'none', from: 'tributary@cdc.test' } });
  await createConnection({ pool: db.pool, keys }, { name: 'live', kind: 'postgres', isBranch: true, branchKey: 'live', params: { cdc: 'log' }, secrets: { url: server.url } });
  const lsn = (await src.query(`SELECT lsn::text AS l FROM pg_create_logical_replication_slot('tributary_live', 'pgoutput')`)).rows[0].l;
  await recordSetup(db.pool, { branch: 'live', namespace: 'etl', slot: 'tributary_live', publication: 'tributary_live', startLsn: lsn, tables: [] });
  await setBranchStatus(db.pool, 'live', 'stopped');
  worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, concurrency: 2, heartbeatMs: 300 });
}, 180_000);
afterAll(async () => {
  await worker?.stop({ timeoutMs: 10_000 });
  await smtp?.close();
  await src?.end();
  await server?.stop();
  await db?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('CDC lag alert (TRIBUTARY_CDC_LAG_ALERT_BYTES)', () => {
  it('under the threshold: no alert, the gauge 0', async () => {
    expect(await retained()).toBeLessThan(THRESHOLD);
    expect((await check()).changes).toEqual([]);
    expect(await alertGauge()).toBe(0);
    expect(await mailJobs()).toEqual([]);
  });

  it('a slot past the threshold mails once, however many leaders check; recovery mails once', async () => {
    // WAL the stopped stream does not acknowledge: the slot makes the source keep it
    await src.query(`CREATE TABLE public.filler AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 5000) g`);
    expect(await retained()).toBeGreaterThan(THRESHOLD);

    // two leaders for a moment (a lock hand-over): one of them records the change, the other sees it
    const both = await Promise.all([check(), check()]);
    expect(both.flatMap((r) => r.changes).map((c) => [c.branch, c.to])).toEqual([['live', 'alerting']]);
    const mail = await waitFor('the alert mail', async () => smtp.messages[0]);
    expect(mail.to).toEqual(['dba@example.com']);
    expect(mail.subject).toMatch(/CDC lag alert: branch live: its replication slot retains [\d.]+ MB of WAL on the source \(alert at 256\.0 kB\)/);
    expect(mail.text).toMatch(/The stream is stopped/);
    expect(await alertGauge()).toBe(1);

    // the state holds: later checks (a restarted worker included: the state is in the database) send nothing
    for (let i = 0; i < 3; i++) expect((await check()).changes).toEqual([]);
    expect((await mailJobs()).length).toBe(1);

    // the stream catches up: the slot moves past the WAL and the source lets it go
    await src.query('CHECKPOINT');
    await src.query(`SELECT pg_replication_slot_advance('tributary_live', pg_current_wal_lsn())`);
    await waitFor('the slot to retain less', async () => {
      await src.query(`SELECT pg_replication_slot_advance('tributary_live', pg_current_wal_lsn())`);
      return (await retained()) < THRESHOLD * 0.8;
    });
    const back = await check();
    expect(back.changes.map((c) => [c.branch, c.to])).toEqual([['live', 'recovered']]);
    await waitFor('the recovered mail', async () => smtp.messages.length === 2);
    expect(smtp.messages[1].subject).toMatch(/CDC lag recovered: branch live/);
    expect((await check()).changes).toEqual([]);
    const done = await waitFor('the mail jobs to end', async () => { const j = await mailJobs(); return j.every((x) => x.status === 'succeeded') && j; });
    expect(done.length).toBe(2);
    expect(smtp.messages.length).toBe(2);
    expect(await alertGauge()).toBe(0);
  });

  it('live figures: rows per second from the rate samples, lag in seconds from the last applied source commit', async () => {
    await setBranchStatus(db.pool, 'live', 'streaming');
    const commit = new Date(Date.now() - 5000);
    await recordBranchApplied(db.pool, 'live', '0/1', 120, commit);
    // the sample is a minute old: the next write moves it forward
    await db.pool.query(`UPDATE etl_meta.cdc_state SET rate_at = now() - interval '61 seconds' WHERE branch_id = 'live'`);
    await recordBranchApplied(db.pool, 'live', '0/2', 60, commit);
    // lag is measured from the later of the last applied commit and the last moment the stream had
    // caught up (an earlier keepalive or status write may have set that after `commit`)
    const caught: Date | null = (await db.pool.query(`SELECT caught_up_at FROM etl_meta.cdc_state WHERE branch_id = 'live'`)).rows[0].caught_up_at;
    const complete = Math.max(commit.getTime(), caught?.getTime() ?? 0);
    const asked = Date.now();
    const [f] = await cdcFigures(db.pool, branchSources({ pool: db.pool, env }));
    expect(f.status).toBe('streaming');
    expect(f.rowsApplied).toBe(180);
    expect(f.rowsPerSecond).toBeGreaterThan(180 / 62); // 180 rows since the older sample, ~61 s ago
    expect(f.rowsPerSecond).toBeLessThanOrEqual(180 / 61);
    expect(f.sourceCommitAt).toBe(commit.toISOString());
    expect(f.retainedWalBytes).not.toBeNull();
    if (f.lagBytes! > 0) expect(f.lagSeconds).toBeGreaterThanOrEqual((asked - complete) / 1000);
    else expect(f.lagSeconds).toBe(0);
    await setBranchStatus(db.pool, 'live', 'stopped');
    expect((await cdcFigures(db.pool, branchSources({ pool: db.pool, env })))[0].rowsPerSecond).toBe(0);
  });
});
