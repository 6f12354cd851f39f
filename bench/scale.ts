/**
 * Scale benchmark. Today: the lake's append throughput onto an s3:// warehouse
 * (s3rver on loopback, through the S3 API) against a file:// warehouse, the
 * same rows in the same run, and the ratio (target ≥ 0.5). The many-worker
 * figures (one vs three workers on one ETL run) belong with the fan-out of a
 * run's units over workers, which is not built yet.
 *
 *   npx tsx bench/scale.ts [--rows 1000000] [--batch 100000]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import { openCliContext } from '../lib/cli/context';
import { openLake, type Lake } from '../lib/lake';
import { startS3 } from '../lib/lake/test-s3';

const arg = (name: string, d: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : d; };
const ROWS = Number(arg('--rows', '1000000'));
const BATCH = Number(arg('--batch', '100000'));
const BRANCHES = 7;

const SCHEMA = new arrow.Schema([
  new arrow.Field('BRANCH_ID', new arrow.Int32(), false),
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('customer', new arrow.Utf8(), true),
  new arrow.Field('amount', new arrow.Float64(), true),
  new arrow.Field('created_at', new arrow.TimestampMicrosecond(), true),
  new arrow.Field('description', new arrow.Utf8(), true),
]);

function* batches(): Generator<arrow.RecordBatch> {
  const per = Math.ceil(ROWS / BRANCHES);
  for (let b = 0; b < BRANCHES; b++) {
    for (let s = 0; s < per; s += BATCH) {
      const n = Math.min(BATCH, per - s);
      const cols = {
        BRANCH_ID: arrow.vectorFromArray(new Int32Array(n).fill(b + 1)),
        id: arrow.vectorFromArray(BigInt64Array.from({ length: n }, (_, i) => BigInt((b + 1) * 1e9 + s + i))),
        customer: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => `customer-${(i * 13 + b) % 50_000}`), new arrow.Utf8()),
        amount: arrow.vectorFromArray(Float64Array.from({ length: n }, (_, i) => ((i * 7919) % 1e6) / 100)),
        created_at: arrow.vectorFromArray(BigInt64Array.from({ length: n }, (_, i) => BigInt(1_700_000_000_000_000 + (s + i) * 1_000_003))),
        description: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => `order ${s + i} of branch ${b}: ${(i * 2654435761) % 1e9}`), new arrow.Utf8()),
      };
      const children = SCHEMA.fields.map((f) => {
        const d = cols[f.name as keyof typeof cols].data[0];
        return f.name === 'created_at' ? arrow.makeData({ type: f.type as arrow.TimestampMicrosecond, length: n, nullCount: 0, data: d.values as BigInt64Array }) : d;
      });
      yield new arrow.RecordBatch(SCHEMA, arrow.makeData({ type: new arrow.Struct(SCHEMA.fields), length: n, nullCount: 0, children }));
    }
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function appendRate(lake: Lake, label: string): Promise<number> {
  const t = await lake.createTable(`bench.append_${crypto.randomBytes(3).toString('hex')}`, { schema: SCHEMA, partitionBy: ['BRANCH_ID'] });
  const t0 = performance.now();
  const r = await t.append(batches());
  const s = (performance.now() - t0) / 1000;
  console.log(`${label}: append ${fmt(ROWS)} rows in ${s.toFixed(2)} s = ${fmt(ROWS / s)} rows/s (${r.addedDataFiles} files)`);
  await lake.dropTable(t.ident, { purge: true });
  return ROWS / s;
}

async function main() {
  const ctx = await openCliContext();
  const s3 = await startS3('bench');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-bench-'));
  const catalog = `bench_${crypto.randomBytes(3).toString('hex')}`;
  console.log(`scale bench: ${fmt(ROWS)} rows, ${BRANCHES} partitions, batches of ${fmt(BATCH)}, ${os.cpus().length} cpus; s3rver at ${s3.endpoint}`);
  try {
    const file = openLake({ pool: ctx.pool, warehouse: dir, catalogName: `${catalog}_f` });
    const obj = openLake({ pool: ctx.pool, warehouse: s3.warehouse(), s3: s3.settings, catalogName: `${catalog}_s` });
    // warm-up (parquet-wasm JIT and memory growth) so neither side pays it alone
    await (await file.createTable('bench.warm', { schema: SCHEMA })).append([batches().next().value!]);
    const f = await appendRate(file, 'file://');
    const o = await appendRate(obj, 's3:// (s3rver, loopback)');
    console.log(`ratio s3/file append throughput: ${(o / f).toFixed(2)} (target ≥ 0.5)`);
  } finally {
    await ctx.pool.query(`delete from iceberg_tables where catalog_name like $1`, [`${catalog}%`]).catch(() => {});
    await ctx.pool.query(`delete from iceberg_namespace_properties where catalog_name like $1`, [`${catalog}%`]).catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
    await s3.stop();
    await ctx.close();
  }
}

await main();
