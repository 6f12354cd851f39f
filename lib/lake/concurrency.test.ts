import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as arrow from 'apache-arrow';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake } from './index';
import { chdbQuery, makeWarehouse, scanRows } from './test-helpers';

// Two processes commit to the same table at once: both land, nothing is lost,
// the history is linear (each snapshot's parent is the one before it).

let db: TestDatabase; let lake: Lake;
const wh = makeWarehouse();
beforeAll(async () => { db = await createTestDatabase(); lake = openLake({ pool: db.pool, warehouse: wh.uri }); });
afterAll(async () => { await db?.drop(); wh.remove(); });

function child(mode: string, branch: number, commits: number): Promise<{ attempts: number }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'lib/lake/concurrency-child.ts', db.url, wh.uri, mode, String(branch), String(commits)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', (d) => (out += d)); p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`child ${mode} ${branch} exited ${code}: ${err}`))));
  });
}

function expectLinear(snaps: { 'snapshot-id': number | bigint; 'parent-snapshot-id'?: number | bigint; 'sequence-number': number }[]) {
  snaps.forEach((s, i) => {
    expect(s['sequence-number']).toBe(i + 1);
    if (i > 0) expect(String(s['parent-snapshot-id'])).toBe(String(snaps[i - 1]['snapshot-id']));
  });
}

test('two processes appending and merging (different partitions) at once', async () => {
  const schema = new arrow.Schema([new arrow.Field('b', new arrow.Int32(), false), new arrow.Field('id', new arrow.Int64(), false), new arrow.Field('v', new arrow.Utf8(), true)]);
  const t = await lake.createTable('c.t', { schema, partitionBy: ['b'] });
  const N = 6;
  const [a, b] = await Promise.all([child('append', 1, N), child('append', 2, N)]);
  await t.refresh();
  expect(t.snapshots()).toHaveLength(2 * N);
  expectLinear(t.snapshots());
  expect((await scanRows(t)).length).toBe(2 * N * 50);
  expect(a.attempts + b.attempts).toBeGreaterThanOrEqual(2 * N);

  const [c, d] = await Promise.all([child('merge', 1, N), child('merge', 2, N)]);
  await t.refresh();
  expect(t.snapshots()).toHaveLength(4 * N);
  expectLinear(t.snapshots());
  const rows = await scanRows(t);
  // merges in each partition updated ids 0..49+25k: no id appears twice, and the last writer's value won
  const ids = rows.map((r) => String(r.id));
  expect(new Set(ids).size).toBe(ids.length);
  const last = rows.find((r) => r.id === 1_000_000n + BigInt(25 * (N - 1)))!;
  expect(last.v).toBe(`p1-c${N - 1}`);
  expect(c.attempts + d.attempts).toBeGreaterThanOrEqual(2 * N);
  const [cnt] = await chdbQuery(t, 'SELECT count() AS n, uniqExact(id) AS u FROM T');
  expect(Number(cnt.n)).toBe(rows.length);
  expect(Number(cnt.u)).toBe(rows.length);
  // every committed version has its own metadata file, and version-hint names the current one
  const v = Number(t.metadataLocation().match(/v(\d+)\.metadata\.json$/)![1]);
  expect(v).toBeGreaterThanOrEqual(4 * N + 1);
  const fs = await import('node:fs');
  expect(fs.readFileSync(new URL(`${t.location}/metadata/version-hint.text`), 'utf8').trim()).toBe(String(v));
});
