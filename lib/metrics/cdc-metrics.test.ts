// /metrics' CDC families through metricsResponse as the web process serves it: a real source
// with wal_level=logical holding a slot, branches stored as connections (one reachable, one down),
// and etl_meta.cdc_state as lib/cdc records it; the exposition parsed by an independent parser.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { startLogicalPostgres, type LogicalPostgres } from '../testing/logical-pg';
import { closeCdcTest } from '../testing/cdc-teardown';
import { closedPort } from '../testing/closed-port';
import { parseEnv, type Env } from '../config/env';
import { createConnection } from '../connections';
import { recordSetup, setBranchStatus } from '../cdc/state';
import { metricsResponse } from './index';

const SECRET = 'cdc-metrics-test-secret-0123456789';
type Family = { name: string; type: string; metrics: { labels?: Record<string, string>; value?: string }[] };
let server: LogicalPostgres;
let db: TestDatabase;
let src: pg.Client;
let dir: string;
let env: Env;

async function scrape(): Promise<Map<string, Family>> {
  const text = await (await metricsResponse({ pool: db.pool, env })).text();
  return new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]));
}
const value = (m: Map<string, Family>, name: string, labels: Record<string, string>) => {
  const s = m.get(name)?.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  return s?.value === undefined ? undefined : Number(s.value);
};
const slotLag = async () => Number((await src.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint AS n FROM pg_replication_slots WHERE slot_name = 'tributary_live'`)).rows[0].n);

beforeAll(async () => {
  server = await startLogicalPostgres();
  db = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-cdc-metrics-'));
  env = parseEnv({ TRIBUTARY_DATA_DIR: dir, DATABASE_URL: db.url, TRIBUTARY_SECRET: SECRET } as unknown as NodeJS.ProcessEnv);
  src = new pg.Client({ connectionString: server.url });
  await src.connect();
  const keys = { secret: SECRET, dataDir: dir };
  await createConnection({ pool: db.pool, keys }, { name: 'live', kind: 'postgres', isBranch: true, branchKey: 'live', params: { cdc: 'log' }, secrets: { url: server.url } });
  await createConnection({ pool: db.pool, keys }, { name: 'down', kind: 'postgres', isBranch: true, branchKey: 'down', params: { cdc: 'log' }, secrets: { url: `postgres://x:y@127.0.0.1:${await closedPort()}/postgres` } });
}, 180_000);
afterAll(() => closeCdcTest({ src, server, db, dir }), 60_000);

describe('GET /metrics: streaming CDC per branch', () => {
  it('shows slot lag and retained WAL read from the source, last commit age and state; a source that is down only loses its slot figures', async () => {
    expect((await scrape()).get('tributary_cdc_lag_bytes')?.metrics ?? []).toEqual([]); // nothing streams yet

    const lsn = (await src.query(`SELECT lsn::text AS l FROM pg_create_logical_replication_slot('tributary_live', 'pgoutput')`)).rows[0].l;
    await recordSetup(db.pool, { branch: 'live', namespace: 'etl', slot: 'tributary_live', publication: 'tributary_live', startLsn: lsn, tables: [] });
    await recordSetup(db.pool, { branch: 'down', namespace: 'etl', slot: 'tributary_down', publication: 'tributary_down', startLsn: lsn, tables: [] });
    await setBranchStatus(db.pool, 'down', 'failed', { error: 'slot dropped' });
    // WAL written after the slot's position and not acknowledged: the lag
    await src.query(`CREATE TABLE public.filler AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 5000) g`);

    const before = await slotLag();
    const m = await scrape();
    const after = await slotLag();
    const lag = value(m, 'tributary_cdc_lag_bytes', { branch: 'live' })!;
    expect(before).toBeGreaterThan(500_000);
    expect(lag).toBeGreaterThanOrEqual(before);
    expect(lag).toBeLessThanOrEqual(after);
    expect(m.get('tributary_cdc_lag_bytes')?.type).toBe('GAUGE');
    expect(value(m, 'tributary_cdc_retained_wal_bytes', { branch: 'live' })).toBeGreaterThanOrEqual(lag);
    expect(value(m, 'tributary_cdc_last_commit_age_seconds', { branch: 'live' })).toBeGreaterThanOrEqual(0);
    expect(value(m, 'tributary_cdc_rows_applied_total', { branch: 'live' })).toBe(0);
    expect(value(m, 'tributary_cdc_state', { branch: 'live', state: 'ready' })).toBe(1);
    expect(value(m, 'tributary_cdc_state', { branch: 'live', state: 'streaming' })).toBe(0);
    // the unreachable source: no slot figures, its state and last commit still shown
    expect(value(m, 'tributary_cdc_lag_bytes', { branch: 'down' })).toBeUndefined();
    expect(value(m, 'tributary_cdc_retained_wal_bytes', { branch: 'down' })).toBeUndefined();
    expect(value(m, 'tributary_cdc_state', { branch: 'down', state: 'failed' })).toBe(1);
    expect(value(m, 'tributary_cdc_last_commit_age_seconds', { branch: 'down' })).toBeGreaterThanOrEqual(0);

    // the slot acknowledged up to now (as a flush does): the lag falls to what was written since
    await src.query(`SELECT pg_replication_slot_advance('tributary_live', pg_current_wal_lsn())`);
    const m2 = await scrape();
    expect(value(m2, 'tributary_cdc_lag_bytes', { branch: 'live' })).toBeLessThan(before / 10);
  }, 120_000);
});
