// The freshness check end to end (issue 24): real Postgres, a real worker
// running mail.send, a real SMTP server (npm smtp-server). A breach mails
// exactly once; the next checks while it holds send nothing; recovery is
// recorded as pass without a mail; /metrics shows the gauges; the flow
// scheduler runs the check only while it leads.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { parseEnv } from '../config/env';
import { createLogger, silentLogger, type LogRecord } from '../log';
import { createJobRegistry, type JobCatalog, startWorker, type WorkerHandle } from '../jobs';
import { createConnection } from '../connections';
import { startTestSmtpServer, type TestSmtpServer } from '../mail/test-smtp-server';
import { startFlowScheduler, SCHEDULER_LOCK_KEY } from '../flows';
import { createMetricsRegistry } from '../metrics';
import { jobDefinitions } from '../../workers/jobs';
import { checkFreshness, freshnessLeaderTask, freshnessReport, loadFreshnessConfig, type FreshnessSources } from './index';
import { waitFor } from '../testing/wait-for';

let catalog: JobCatalog;

let db: TestDatabase;
let worker: WorkerHandle;
let smtp: TestSmtpServer;
let dir: string;
let sources: FreshnessSources;
const SECRET = 'freshness-test-secret-0123456789';
const jobs = createJobRegistry(jobDefinitions);

const rows = async (sql: string, args: unknown[] = []) => (await db.pool.query(sql, args)).rows;
const mailJobs = () => rows(`select id, status from job_runs where kind = 'mail.send' and created_by = 'freshness' order by created_at`);
const setLoad = (branch: string, agoSeconds: number | null) => db.pool.query(
  `insert into etl_meta.etl_control (namespace, table_name, branch_id, status, last_success_at) values ('etl', 'customers', $1, 'SUCCESS', now() - make_interval(secs => $2::float8))
   on conflict (namespace, table_name, branch_id) do update set last_success_at = excluded.last_success_at`, [branch, agoSeconds]);

beforeAll(async () => {
  db = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-freshness-'));
  smtp = await startTestSmtpServer();
  const env = parseEnv({ TRIBUTARY_DATA_DIR: dir, TRIBUTARY_SECRET: SECRET } as unknown as NodeJS.ProcessEnv);
  await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir: dir } }, {
    name: 'alerts-relay', kind: 'smtp', params: { host: '127.0.0.1', port: smtp.port, tls: 'none', from: 'tributary@freshness.test' },
  });
  fs.writeFileSync(path.join(dir, 'tables.json'), JSON.stringify({
    freshness_alerts: { recipients: ['oncall@example.com'], smtp_connection: 'alerts-relay' },
    tables: [
      { table: 'CRM.CUSTOMERS', unique_key: 'ID', freshness: { warn_after: '2h', error_after: '6h' } },
      { table: 'CRM.REGIONS', unique_key: 'ID' },
    ],
  }));
  fs.mkdirSync(path.join(dir, 'models', 'models'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'models', 'models', 'schema.yml'),
    'version: 2\nmodels:\n  - name: customer_totals\n    config:\n      freshness:\n        warn_after: {count: 12, period: hour}\n');
  sources = { tablesFile: path.join(dir, 'tables.json'), modelsDir: path.join(dir, 'models') };
  catalog = { jobs, env };
  worker = await startWorker({ jobs, pool: db.pool, env, logger: silentLogger, concurrency: 2, heartbeatMs: 300 });
});

afterAll(async () => {
  await worker?.stop({ timeoutMs: 10_000 });
  await smtp?.close();
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('freshness check', () => {
  it('a breach fires exactly one alert mail; recovery is recorded as pass without another', async () => {
    const config = await loadFreshnessConfig(sources);
    expect(config.expectations.map((e) => e.asset)).toEqual(['lake:etl.customers', 'model:customer_totals']);
    await setLoad('B1', 10 * 60);
    await setLoad('B2', 3 * 3600); // the stalest branch: 3 h > warn_after 2 h
    await db.pool.query(`insert into model_results (run_id, command, node, kind, status, created_at) values ('r1', 'build', 'customer_totals', 'model', 'success', now() - interval '1 hour')`);

    const first = await checkFreshness({ pool: db.pool, catalog, logger: silentLogger, config, publicUrl: 'http://panel.test' });
    expect(first.transitions).toEqual([{ asset: 'lake:etl.customers', from: null, to: 'warn' }]);
    expect(first.alertRunId).not.toBeNull();
    const mail = await waitFor('the alert mail', async () => smtp.messages[0]);
    expect(mail.to).toEqual(['oncall@example.com']);
    expect(mail.subject).toMatch(/Freshness: lake:etl\.customers is stale \(warn: 3h since its last success\)/);
    expect(mail.text).toMatch(/branch B2/);

    // The state holds: further checks send nothing and queue nothing.
    for (let i = 0; i < 3; i++) expect((await checkFreshness({ pool: db.pool, catalog, logger: silentLogger, config })).transitions).toEqual([]);
    expect((await mailJobs()).length).toBe(1);

    // Worse: warn → error alerts once more.
    await setLoad('B2', 7 * 3600);
    const worse = await checkFreshness({ pool: db.pool, catalog, logger: silentLogger, config });
    expect(worse.transitions).toEqual([{ asset: 'lake:etl.customers', from: 'warn', to: 'error' }]);
    await waitFor('the second mail', async () => smtp.messages.length === 2);
    expect(smtp.messages[1].subject).toMatch(/\(error: 7h since/);

    // Recovery: both branches loaded again → pass, recorded, no mail; the next tick records nothing.
    await setLoad('B2', 60);
    const back = await checkFreshness({ pool: db.pool, catalog, logger: silentLogger, config });
    expect(back.transitions).toEqual([{ asset: 'lake:etl.customers', from: 'error', to: 'pass' }]);
    expect(back.alertRunId).toBeNull();
    expect((await checkFreshness({ pool: db.pool, catalog, logger: silentLogger, config })).transitions).toEqual([]);
    const jobsNow = await waitFor('the mail jobs to end', async () => { const j = await mailJobs(); return j.every((x) => x.status === 'succeeded') && j; });
    expect(jobsNow.length).toBe(2);
    expect(smtp.messages.length).toBe(2);

    const events = await rows(`select asset, from_status, to_status, alert_run_id is not null as alerted from asset_freshness_events order by id`);
    expect(events).toEqual([
      { asset: 'lake:etl.customers', from_status: null, to_status: 'warn', alerted: true },
      { asset: 'lake:etl.customers', from_status: 'warn', to_status: 'error', alerted: true },
      { asset: 'lake:etl.customers', from_status: 'error', to_status: 'pass', alerted: false },
    ]);
    const state = await rows(`select asset, status from asset_freshness order by asset`);
    expect(state).toEqual([{ asset: 'lake:etl.customers', status: 'pass' }, { asset: 'model:customer_totals', status: 'pass' }]);
  });

  it('/metrics shows the lag and status gauges per asset', async () => {
    await db.pool.query(`update model_results set created_at = now() - interval '13 hours' where node = 'customer_totals'`);
    await checkFreshness({ pool: db.pool, catalog, logger: silentLogger, config: await loadFreshnessConfig(sources) });
    const text = await createMetricsRegistry({ pool: db.pool, schedulerLockKey: SCHEDULER_LOCK_KEY }).metrics();
    type Fam = { name: string; type: string; metrics: { labels?: Record<string, string>; value?: string }[] };
    const fams = new Map((parsePrometheusTextFormat(text) as Fam[]).map((f) => [f.name, f]));
    const lag = fams.get('tributary_asset_freshness_lag_seconds');
    expect(lag?.type).toBe('GAUGE');
    const lagOf = (asset: string) => Number(lag?.metrics.find((m) => m.labels?.asset === asset)?.value);
    expect(lagOf('lake:etl.customers')).toBeGreaterThanOrEqual(60 * 10); // B1, 10 min ago, is now the stalest
    expect(lagOf('lake:etl.customers')).toBeLessThan(3600);
    expect(lagOf('model:customer_totals')).toBeGreaterThanOrEqual(13 * 3600);
    const status = fams.get('tributary_asset_freshness_status');
    const on = status?.metrics.filter((m) => m.value === '1').map((m) => `${m.labels?.asset}=${m.labels?.status}`).sort();
    expect(on).toEqual(['lake:etl.customers=pass', 'model:customer_totals=warn']);
    expect(status?.metrics.length).toBe(8); // 2 assets × 4 statuses: a bounded label set
  });

  it('the report lists every asset with an expectation, breaches first', async () => {
    const r = await freshnessReport(db.pool, sources);
    expect(r.assets.map((a) => [a.asset, a.status])).toEqual([['model:customer_totals', 'warn'], ['lake:etl.customers', 'pass']]);
    expect(r.assets[0].statusSince).not.toBeNull();
    expect(r.counts).toEqual({ pass: 1, warn: 1, error: 0, unknown: 0 });
    expect(r.alerts).toEqual({ recipients: ['oncall@example.com'], smtpConnection: 'alerts-relay' });
  });

  it('the flow scheduler runs the check only while it leads', async () => {
    let calls = 0;
    const task = freshnessLeaderTask({ pool: db.pool, catalog, logger: silentLogger, everyMs: 0, load: async () => { calls++; return loadFreshnessConfig(sources); } });
    const lockKey = 990_024;
    const aLog: LogRecord[] = [];
    const a = startFlowScheduler({ pool: db.pool, catalog, url: db.url, logger: createLogger((r) => aLog.push(r)), tickMs: 60_000, lockKey, leaderTasks: [task] });
    try {
      await waitFor('a to lead', async () => a.isLeader());
      await a.tick();
      expect(calls).toBeGreaterThan(0);
      let bCalls = 0;
      const b = startFlowScheduler({ pool: db.pool, catalog, url: db.url, logger: silentLogger, tickMs: 60_000, lockKey, leaderTasks: [async () => { bCalls++; }] });
      try {
        await b.tick(); await b.tick();
        expect(b.isLeader()).toBe(false);
        expect(bCalls).toBe(0);
      } finally { await b.stop(); }
    } finally { await a.stop(); }
    // a worker that stops gives the lead up: said at info, not warned as a loss
    expect(aLog.filter((r) => /leadership/.test(r.message)).map((r) => `${r.level} ${r.message}`)).toEqual(['info flows: scheduler leadership released (stopping)']);
  });
});
