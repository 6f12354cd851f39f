/**
 * Models benchmark: a table model over a 1M-row lake table, built by
 * Tributary (render, CREATE TABLE … AS SELECT into a side table, count,
 * atomic swap of the previous build) against the same SELECT materialised
 * directly in chdb over the same icebergLocal source (CREATE TABLE … AS
 * SELECT into a fresh table, the reference),
 * in the same process and session. Prints both medians and the ratio
 * (target: Tributary's overhead ≤ 10 %).
 *
 *   npx tsx bench/models.ts [--rows 1000000] [--repeat 5]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import { openCliContext, parseCliSettings } from '../lib/cli/context';
import { createJobRegistry } from '../lib/jobs/registry';
import { openLake } from '../lib/lake';
import { chdbReadRoot, openChdbTarget } from '../lib/models/chdb-target';
import { executeProject } from '../lib/models/execute';
import { parseProject } from '../lib/models/project';
import { renderSource } from '../lib/models/source-sql';

const arg = (name: string, d: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : d; };
const ROWS = Number(arg('--rows', '1000000'));
const REPEAT = Number(arg('--repeat', '5'));
const BATCH = 200_000;

// chdb reads lake files only below the cwd: the bench's data folder (embedded Postgres + warehouse) lives in bench/out.
const DATA = path.resolve('bench/out', `models-${crypto.randomBytes(3).toString('hex')}`);
fs.mkdirSync(DATA, { recursive: true });
process.env.TRIBUTARY_DATA_DIR = DATA;
delete process.env.TRIBUTARY_WAREHOUSE;
delete process.env.DATABASE_URL;

const SCHEMA = new arrow.Schema([
  new arrow.Field('BRANCH_ID', new arrow.Int32(), false),
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('customer', new arrow.Utf8(), true),
  new arrow.Field('amount', new arrow.Float64(), true),
  new arrow.Field('status', new arrow.Utf8(), true),
  new arrow.Field('insert_at', new arrow.TimestampMicrosecond(), true),
]);

function batch(start: number, n: number): arrow.RecordBatch {
  const ids = new BigInt64Array(n); const amount = new Float64Array(n); const ts = new BigInt64Array(n);
  const cust: string[] = []; const status: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = start + i;
    ids[i] = BigInt(k); amount[i] = ((k * 7919) % 100_000) / 100; ts[i] = BigInt(1_735_689_600_000_000 + k * 1000);
    cust.push(`customer-${k % 50_000}`); status.push(['new', 'paid', 'shipped', 'closed'][k % 4]);
  }
  const fixed = (type: arrow.DataType, data: ArrayLike<number> | BigInt64Array) => arrow.makeData({ type: type as arrow.Int, length: n, nullCount: 0, data: data as Int32Array });
  const children = [
    fixed(new arrow.Int32(), new Int32Array(n).fill(1 + (start / BATCH) % 4)), fixed(new arrow.Int64(), ids),
    arrow.vectorFromArray(cust, new arrow.Utf8()).data[0], fixed(new arrow.Float64(), amount),
    arrow.vectorFromArray(status, new arrow.Utf8()).data[0], fixed(new arrow.TimestampMicrosecond(), ts),
  ];
  return new arrow.RecordBatch(SCHEMA, arrow.makeData({ type: new arrow.Struct(SCHEMA.fields), length: n, nullCount: 0, children }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const ctx = await openCliContext({ settings: parseCliSettings(), jobs: createJobRegistry([]) }, { migrate: true });
  const target = await openChdbTarget({ stateDir: path.join(DATA, 'chdb'), cwd: chdbReadRoot(ctx.env.warehouse, path.join(DATA, 'chdb')), database: 'models' });
  try {
    const lake = openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse });
    await lake.createNamespace('bench');
    const t = await lake.createTable('bench.orders', { schema: SCHEMA, partitionBy: ['BRANCH_ID'] });
    let t0 = Date.now();
    const batches: arrow.RecordBatch[] = [];
    for (let s = 0; s < ROWS; s += BATCH) batches.push(batch(s, Math.min(BATCH, ROWS - s)));
    await t.append(batches);
    process.stdout.write(`lake table bench.orders: ${ROWS} rows appended in ${Date.now() - t0} ms\n`);

    const select = (from: string) => `SELECT id, customer, amount, status, insert_at FROM ${from} WHERE amount >= 0`;
    const source = renderSource(t.location, target.lake);
    const project = parseProject('/bench', { 'models/orders_copy.sql': `{{ config(materialized='table', order_by='id') }}\n${select("{{ source('lake', 'bench.orders') }}")}\n` });
    const resolveSource = async () => t.location;

    // warm both paths (file cache, metadata) once
    await target.command(`CREATE DATABASE IF NOT EXISTS ref`);
    await target.command(`CREATE OR REPLACE TABLE ref.orders_copy ENGINE = MergeTree() ORDER BY id SETTINGS allow_nullable_key = 1 AS ${select(source)}`);
    await executeProject(project, target, { command: 'run', resolveSource });

    const direct: number[] = []; const tributary: number[] = [];
    const runDirect = async () => {
      await target.command('DROP TABLE IF EXISTS ref.orders_copy SYNC'); // untimed: the reference builds a fresh table
      const t1 = performance.now();
      await target.command(`CREATE TABLE ref.orders_copy ENGINE = MergeTree() ORDER BY id SETTINGS allow_nullable_key = 1 AS ${select(source)}`);
      direct.push(performance.now() - t1);
    };
    const runModel = async () => {
      const t1 = performance.now();
      const s = await executeProject(project, target, { command: 'run', resolveSource });
      tributary.push(performance.now() - t1);
      if (!s.ok || s.results[0].rows !== ROWS) throw new Error(`bench: the model did not build ${ROWS} rows: ${JSON.stringify(s.results[0])}`);
    };
    // alternate which goes first, so neither always runs on a warmer cache
    for (let i = 0; i < REPEAT; i++) {
      if (i % 2 === 0) { await runDirect(); await runModel(); } else { await runModel(); await runDirect(); }
    }
    const [n] = (await target.query('SELECT count() AS n FROM ref.orders_copy')).rows;
    if (Number(n.n) !== ROWS) throw new Error('bench: the reference table is incomplete');
    const d = median(direct); const m = median(tributary);
    process.stdout.write(`direct chdb CREATE TABLE … AS SELECT over icebergLocal: ${d.toFixed(0)} ms (median of ${REPEAT})\n`);
    process.stdout.write(`tributary table model (same SELECT):                  ${m.toFixed(0)} ms (median of ${REPEAT})\n`);
    process.stdout.write(`ratio tributary / direct: ${(m / d).toFixed(3)} (overhead ${(((m / d) - 1) * 100).toFixed(1)} %, target ≤ 10 %)\n`);
  } finally {
    await target.close();
    await ctx.close();
    fs.rmSync(DATA, { recursive: true, force: true });
  }
}

main().catch((e) => { process.stderr.write(`${(e as Error).stack}\n`); process.exitCode = 1; });
