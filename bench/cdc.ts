/**
 * bench/cdc.ts — streaming CDC from a PostgreSQL branch (lib/cdc) into the lake.
 *
 * One PostgreSQL server with wal_level=logical holds the branch (database `postgres`) and
 * Tributary's own database (`tributary`); the lake is a temporary folder. Then:
 *  1. lag: a writer commits `--tps` transactions per second (each inserting 5 rows and updating 5,
 *     some rows' updates leaving the watermark column alone) for `--seconds`, while the stream
 *     applies them every `--flush-interval`; the end-to-end lag of each transaction (source commit
 *     → its lake commit done and acknowledged) at the median and the 99th percentile, next to the
 *     goal (median < 2 × flush interval);
 *  2. apply rate: with the stream stopped, a backlog of `--backlog` changes is written; a second
 *     slot created just before it is read with the replication protocol and decoded (pgoutput)
 *     into a null sink — the `pg_recvlogical`-style reference — and the stream applies the same
 *     WAL into the lake; changes/s of each, and the ratio apply/raw (goal ≥ 0.5).
 *
 *   npx tsx bench/cdc.ts [--tps 50] [--seconds 20] [--flush-interval 2000] [--backlog 200000]
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../lib/db/migrate';
import { createPool } from '../lib/db/pool';
import { silentLogger } from '../lib/log';
import { openLake } from '../lib/lake';
import { createPostgresSource } from '../lib/sources';
import { lakeTarget } from '../lib/etl/lake-target';
import { runEtl } from '../lib/etl/runner';
import { DEFAULT_SETTINGS } from '../lib/etl/settings';
import { parseTablesConfig } from '../lib/config/tables-json';
import { setupBranch } from '../lib/cdc/setup-branch';
import { runStream, type FlushInfo } from '../lib/cdc/stream';
import { decodePgOutput } from '../lib/cdc/pgoutput';
import { createSlot, openReplicationClient, startReplication } from '../lib/cdc/replication';
import { unixMicros } from '../lib/cdc/pgoutput';
import { startLogicalPostgres } from '../lib/testing/logical-pg';

const arg = (name: string, def: string) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
const TPS = Number(arg('tps', '50'));
const SECONDS = Number(arg('seconds', '20'));
const FLUSH_MS = Number(arg('flush-interval', '2000'));
const BACKLOG = Number(arg('backlog', '200000'));
const tables = parseTablesConfig([{ table: 'public.items', unique_key: 'id', cdc_column: 'at', category: 'masters' }]);
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

const server = await startLogicalPostgres();
const warehouse = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-cdc-'));
try {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query('CREATE DATABASE tributary');
  const appUrl = server.url.replace(/\/postgres$/, '/tributary');
  await migrate(appUrl);
  const pool = createPool(appUrl, { max: 6 });
  const lake = openLake({ pool, warehouse: `file://${warehouse}` });
  await admin.query(`CREATE TABLE public.items (id bigint PRIMARY KEY, name text, qty int, price numeric(12,2), at timestamptz)`);
  await admin.query(`INSERT INTO public.items SELECT g, 'item ' || g, g % 100, g * 0.01, now() FROM generate_series(1, 100000) g`);
  const source = { connectionString: server.url };
  await setupBranch({
    pool, lake, branch: 'b0', namespace: 'etl', source, tables, logger: silentLogger,
    initialLoad: async (snapshot) => {
      const src = createPostgresSource({ branch: 'b0', connectionString: server.url, poolSize: 2, snapshot });
      try { await runEtl({ pool, target: lakeTarget(lake, { namespace: 'etl' }), branches: [{ key: 'b0', source: src }], tables, settings: { ...DEFAULT_SETTINGS, mode: 'INITIAL' }, logger: silentLogger, stagingRoot: path.join(warehouse, 'staging') }); } finally { await src.close(); }
    },
  });

  // 1. lag under a steady writer
  const lags: number[] = [];
  let ac = new AbortController();
  let stream = runStream({
    pool, lake, branch: 'b0', source, tables, logger: silentLogger, runId: 'bench', signal: ac.signal, flushIntervalMs: FLUSH_MS, flushRows: 1_000_000,
    onFlush: (f: FlushInfo) => { const now = BigInt(Date.now()) * 1000n; for (const c of f.commitTimesMicros) lags.push(Number(now - unixMicros(c)) / 1000); },
  });
  const w = new pg.Client({ connectionString: server.url });
  await w.connect();
  let next = 1_000_000;
  const t0 = Date.now();
  // the transactions actually committed (a loaded machine writes fewer than tps × seconds)
  let written = 0;
  for (let i = 0; Date.now() - t0 < SECONDS * 1000; i++, written++) {
    const due = t0 + (i * 1000) / TPS;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    await w.query(`BEGIN; INSERT INTO public.items SELECT g, 'w', 1, 1.5, now() FROM generate_series(${next}, ${next + 4}) g;
      UPDATE public.items SET qty = qty + 1 WHERE id IN (SELECT (random() * 99999)::bigint + 1 FROM generate_series(1, 5)); COMMIT`);
    next += 5;
  }
  while (lags.length < written) await new Promise((r) => setTimeout(r, 100));
  ac.abort(); await stream;
  console.log(`lag (source commit → lake commit acknowledged), ${lags.length} transactions at ${TPS} tx/s, flush interval ${FLUSH_MS} ms:`);
  console.log(`  median ${pct(lags, 0.5).toFixed(0)} ms, p99 ${pct(lags, 0.99).toFixed(0)} ms; median / flush interval = ${(pct(lags, 0.5) / FLUSH_MS).toFixed(2)} (goal < 2)`);

  // 2. apply rate vs raw decode of the same WAL
  const rawConn = await openReplicationClient(source, 'bench-raw');
  const raw = await createSlot(rawConn, 'bench_raw');
  await rawConn.end();
  const per = 1000;
  for (let k = 0; k < BACKLOG / per / 2; k++) {
    await w.query(`BEGIN; INSERT INTO public.items SELECT g, 'b', 1, 2.5, now() FROM generate_series(${next}, ${next + per - 1}) g;
      UPDATE public.items SET name = name || '.' WHERE id BETWEEN ${next - per} AND ${next - 1}; COMMIT`);
    next += per;
  }
  // a marker row ends the backlog: both readers stop at it, and count the changes they saw
  await w.query(`INSERT INTO public.items VALUES (-1, 'end of backlog', 0, 0, now())`);
  const endLsn = (await w.query(`SELECT pg_current_wal_lsn()::text AS l`)).rows[0].l as string;
  // raw: decode every message of the backlog, apply nothing
  const rc = await openReplicationClient(source, 'bench-raw');
  let rows = 0; let resolveRaw: () => void = () => {};
  const rawDone = new Promise<void>((r) => { resolveRaw = r; });
  const tr = process.hrtime.bigint();
  const rs = startReplication(rc, { slot: 'bench_raw', publication: 'tributary_b0', startLsn: raw.consistentPoint, onFrame: (f) => {
    if (f.kind !== 'xlog') return;
    const m = decodePgOutput(f.data);
    if (m.tag === 'insert' || m.tag === 'update' || m.tag === 'delete') rows++;
    if (m.tag === 'insert' && m.row[0] === '-1') resolveRaw();
  } });
  await rawDone;
  const rawS = Number(process.hrtime.bigint() - tr) / 1e9;
  const changes = rows;
  await rs.stop();
  await admin.query(`SELECT pg_drop_replication_slot('bench_raw')`);
  // apply: the stream applies the same backlog into the lake
  let applied = 0; let resolveApply: () => void = () => {};
  const applyDone = new Promise<void>((r) => { resolveApply = r; });
  ac = new AbortController();
  const ta = process.hrtime.bigint();
  stream = runStream({
    pool, lake, branch: 'b0', source, tables, logger: silentLogger, runId: 'bench', signal: ac.signal, flushIntervalMs: FLUSH_MS, flushRows: 50_000,
    onFlush: (f) => { applied += f.rows; if (applied >= changes) resolveApply(); },
  });
  await applyDone;
  const applyS = Number(process.hrtime.bigint() - ta) / 1e9;
  ac.abort(); await stream;
  console.log(`apply rate, backlog of ${changes} changes (inserts and updates, in transactions of ${2 * per}) up to ${endLsn}:`);
  console.log(`  raw pgoutput decode ${(changes / rawS).toFixed(0)} changes/s (${rawS.toFixed(2)} s); stream into the lake ${(changes / applyS).toFixed(0)} changes/s (${applyS.toFixed(2)} s); apply/raw = ${(rawS / applyS).toFixed(2)} (goal ≥ 0.5)`);
  await w.end(); await admin.end(); await pool.end();
} finally {
  await server.stop();
  await fs.rm(warehouse, { recursive: true, force: true });

}
