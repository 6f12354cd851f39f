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
  expect(d.partitionSpec).toEqual([{ 'source-id': 2, 'field-id': 1000, name: 'branch', transform: 'identity' }]);
  expect(d.rowsPerPartition.map((r: { rows: number }) => r.rows).sort()).toEqual([2, 2]);
  expect(d.currentSnapshot.summary.operation).toBe('overwrite');
  const bad = cli('scan', 'sales.t', '--limit', 'x');
  expect(bad.code).not.toBe(0);
  expect(bad.err).toMatch(/--limit/);
  const nokey = cli('import', 'sales.t', b, '--mode', 'merge');
  expect(nokey.code).not.toBe(0);
  expect(nokey.err).toMatch(/--key/);
});
