import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { makeWarehouse } from '../lake/test-helpers';

// `tributary lake …` end to end against a real database and warehouse.

let db: TestDatabase;
const wh = makeWarehouse();
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); wh.remove(); });

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/tributary.mjs', 'lake', ...args], {
    encoding: 'utf8', env: { ...process.env, DATABASE_URL: db.url, TRIBUTARY_WAREHOUSE: wh.uri, TRIBUTARY_DATA_DIR: wh.dir, LOG_LEVEL: 'error' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('import, merge, scan, describe; flag errors name the flag', () => {
  const a = path.join(wh.dir, 'a.csv'), b = path.join(wh.dir, 'b.csv');
  fs.writeFileSync(a, 'id,branch,name,amount\n1,1,a,1.5\n2,1,b,2.5\n3,2,"c,x",3\n');
  fs.writeFileSync(b, 'id,branch,name,amount\n2,1,B,20\n4,2,d,4\n');
  expect(cli('import', 'sales.t', a, '--mode', 'append', '--partition-by', 'branch')).toMatchObject({ code: 0 });
  const m = cli('import', 'sales.t', b, '--mode', 'merge', '--key', 'id', '--json');
  expect(m.code).toBe(0);
  expect(JSON.parse(m.out)).toMatchObject({ inserted: 1, updated: 1 });
  const s = cli('scan', 'sales.t', '--where-partition', '1', '--format', 'json');
  expect(JSON.parse(s.out).sort((x: { id: number }, y: { id: number }) => x.id - y.id)).toEqual([
    { id: 1, branch: 1, name: 'a', amount: 1.5 }, { id: 2, branch: 1, name: 'B', amount: 20 },
  ]);
  const d = JSON.parse(cli('describe', 't', '--namespace', 'sales', '--json').out);
  // a bare name not in --namespace (default: default) names where it is
  const elsewhere = cli('describe', 't');
  expect(elsewhere.code).not.toBe(0);
  expect(elsewhere.err).toMatch(/table default\.t does not exist \(a bare name is looked up in --namespace, here default; sales\.t exists: name it so\)/);
  expect(cli('describe', 'nowhere').err).toMatch(/table default\.nowhere does not exist\n/);
  expect(d.partitionSpec).toEqual([{ 'source-id': 2, 'field-id': 1000, name: 'branch', transform: 'identity' }]);
  expect(d.rowsPerPartition.map((r: { rows: number }) => r.rows).sort()).toEqual([2, 2]);
  expect(d.currentSnapshot.summary.operation).toBe('overwrite');
  // the history: Iceberg's total-records counts rows a delete file removes, so those are shown beside it
  const snaps = cli('snapshots', 'sales.t').out.trim().split('\n');
  expect(snaps).toHaveLength(2);
  expect(snaps[0]).toMatch(/\tappend\trecords 3$/);
  expect(snaps[1]).toMatch(/^\* \d+\tseq 2\t.*\toverwrite\trecords 5, 1 deleted by position$/);
  const bad = cli('scan', 'sales.t', '--limit', 'x');
  expect(bad.code).not.toBe(0);
  expect(bad.err).toMatch(/--limit/);
  const nokey = cli('import', 'sales.t', b, '--mode', 'merge');
  expect(nokey.code).not.toBe(0);
  expect(nokey.err).toMatch(/--key/);
});

test('remove-orphans: a dry run lists, a sweep deletes the old orphan only; a bad --older-than names the flag', () => {
  const a = path.join(wh.dir, 'o.csv');
  fs.writeFileSync(a, 'id,branch\n1,1\n2,2\n');
  expect(cli('import', 'ops.o', a, '--mode', 'append', '--partition-by', 'branch')).toMatchObject({ code: 0 });
  const loc = JSON.parse(cli('describe', 'ops.o', '--json').out).location as string;
  const dir = new URL(loc).pathname;
  const old = path.join(dir, 'data', 'branch=1', 'never-committed.parquet');
  const fresh = path.join(dir, 'data', 'branch=2', 'in-flight.parquet');
  fs.writeFileSync(old, 'x'.repeat(10));
  fs.writeFileSync(fresh, 'y');
  const tenDays = new Date(Date.now() - 10 * 86_400_000);
  for (const f of fs.readdirSync(dir, { recursive: true })) {
    const p = path.join(dir, String(f));
    if (fs.statSync(p).isFile() && p !== fresh) fs.utimesSync(p, tenDays, tenDays);
  }
  const dry = cli('remove-orphans', 'ops.o', '--dry-run', '--json');
  expect(dry.code).toBe(0);
  const d = JSON.parse(dry.out);
  expect(d).toMatchObject({ dryRun: true, deletedFiles: 0, recentUnreferenced: 1 });
  expect(d.orphans.map((o: { uri: string }) => new URL(o.uri).pathname)).toEqual([old]);
  expect(fs.existsSync(old)).toBe(true);

  const bad = cli('remove-orphans', 'ops.o', '--older-than', '3 weeks');
  expect(bad.code).toBe(2);
  expect(bad.err).toMatch(/--older-than: expected seconds/);

  const run = cli('remove-orphans', 'ops.o', '--older-than', '3d');
  expect(run.code).toBe(0);
  expect(run.out).toMatch(/deleted 1 orphan files \(10 bytes\) from ops\.o/);
  expect(fs.existsSync(old)).toBe(false);
  expect(fs.existsSync(fresh)).toBe(true);
  const s = cli('scan', 'ops.o', '--format', 'json');
  expect(JSON.parse(s.out).map((r: { id: number }) => r.id).sort()).toEqual([1, 2]);
  const again = JSON.parse(cli('remove-orphans', 'ops.o', '--json').out);
  expect(again).toMatchObject({ orphans: [], deletedFiles: 0 });
});

test('expire: --max-snapshot-age-ms and --min-snapshots-to-keep reach the expiry (what a lake.expire job\'s shown line carries)', () => {
  const a = path.join(wh.dir, 'e.csv');
  fs.writeFileSync(a, 'id\n1\n');
  for (let i = 0; i < 3; i++) expect(cli('import', 'ops.e', a, '--mode', 'append')).toMatchObject({ code: 0 });
  // The table's defaults (5 days) keep all three.
  expect(JSON.parse(cli('expire', 'ops.e', '--json').out)).toMatchObject({ expiredSnapshots: 0 });
  const bad = cli('expire', 'ops.e', '--min-snapshots-to-keep', '0');
  expect(bad.code).not.toBe(0);
  expect(bad.err).toMatch(/--min-snapshots-to-keep/);
  const r = cli('expire', 'ops.e', '--max-snapshot-age-ms', '1', '--min-snapshots-to-keep', '1', '--json');
  expect(r.code, r.err).toBe(0);
  expect(JSON.parse(r.out)).toMatchObject({ expiredSnapshots: 2 });
  expect(JSON.parse(cli('snapshots', 'ops.e', '--json').out)).toHaveLength(1);
});

test('import: a null partition value lands; a merge key is required; a value its column cannot hold names the file, row and column, and a failed first import leaves no table', () => {
  const p = path.join(wh.dir, 'p.csv'), k = path.join(wh.dir, 'k.csv'), bad = path.join(wh.dir, 'bad.csv');
  fs.writeFileSync(p, 'id,region,amount\n1,,1\n2,us,2\n');
  expect(cli('import', 'imp.p', p, '--mode', 'append', '--partition-by', 'region')).toMatchObject({ code: 0 });
  const rows = JSON.parse(cli('scan', 'imp.p', '--format', 'json').out).sort((x: { id: number }, y: { id: number }) => x.id - y.id);
  expect(rows).toEqual([{ id: 1, region: null, amount: 1 }, { id: 2, region: 'us', amount: 2 }]);
  const pd = JSON.parse(cli('describe', 'imp.p', '--json').out);
  expect(pd.schema.find((f: { name: string }) => f.name === 'region').required).toBe(false);
  // a table made by a merge import is keyed: its key is required
  fs.writeFileSync(k, 'id,name\n1,a\n');
  expect(cli('import', 'imp.k', k, '--mode', 'merge', '--key', 'id')).toMatchObject({ code: 0 });
  expect(JSON.parse(cli('describe', 'imp.k', '--json').out).schema.find((f: { name: string }) => f.name === 'id').required).toBe(true);
  // a long column meets 10.5: refused by name (was "Cannot convert 10.5 to a BigInt"), the table unchanged
  fs.writeFileSync(bad, 'id,region,amount\n3,eu,3\n4,eu,10.5\n');
  const r = cli('import', 'imp.p', bad, '--mode', 'append');
  expect(r.code).not.toBe(0);
  expect(r.err).toContain(`import: ${bad}: CSV row 2, column amount: '10.5' is not an integer (64-bit) (the column is long)`);
  expect(JSON.parse(cli('scan', 'imp.p', '--format', 'json').out)).toHaveLength(2);
  // the first import of a new table fails at its second file: no empty table is left behind
  const r2 = cli('import', 'imp.new', p, bad, '--mode', 'append');
  expect(r2.code).not.toBe(0);
  expect(cli('describe', 'imp.new').err).toMatch(/table imp\.new does not exist/);
});
