import { afterAll, beforeAll, expect, it } from 'vitest';
import { IcebergRestCatalog } from 'iceberg-js';
import { createApiToken, createUser } from '../auth';
import { parseEnv } from '../config/env';
import { createPrisma } from '../db/prisma';
import { openLake } from '../lake';
import { BRANCH_SCHEMA, branchBatch, branchRows, giveSnapshotIds, makeWarehouse } from '../lake/test-helpers';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { handleIcebergRest, type IcebergRestDeps } from './catalog';
import { startIcebergServer } from './test-server';

// loadTable of a table whose snapshot ids are above 2^53 (as Java and pyiceberg write them), after
// a Tributary commit on it: the body carries every id as its exact digits, and an iceberg-js client
// (which reads numbers as doubles) still finds the current snapshot. A table with no snapshot
// answers current-snapshot-id -1: the spec types it a long, not nullable.

const BIG_A = '3051729675574597004', BIG_B = '8120981375462880765';
let db: TestDatabase;
let deps: IcebergRestDeps;
let token: string;
const wh = makeWarehouse();

beforeAll(async () => {
  db = await createTestDatabase();
  const env = parseEnv({ TRIBUTARY_DATA_DIR: wh.dir, TRIBUTARY_WAREHOUSE: wh.uri } as unknown as NodeJS.ProcessEnv);
  const prisma = createPrisma(db.url, { max: 2 });
  deps = { env, pool: db.pool, prisma };
  await createUser(prisma, { name: 'vera', password: 'viewer-pass-1', role: 'viewer' });
  token = (await createApiToken(prisma, { user: 'vera', name: 'reader' })).token;
});
afterAll(async () => { await deps?.prisma.$disconnect(); await db?.drop(); wh.remove(); });

const load = async (p: string) => {
  const r = await handleIcebergRest(new Request(`http://tributary.test/iceberg/v1/namespaces/${p}`, { headers: { authorization: `Bearer ${token}` } }), deps);
  expect(r.status).toBe(200);
  return r.text();
};
const ids = (s: string, key: string) => [...s.matchAll(new RegExp(`"${key}"\\s*:\\s*(-?\\d+)`, 'g'))].map((m) => m[1]);

it('loadTable answers 64-bit snapshot ids exactly after Tributary committed on them, and -1 for no snapshot', async () => {
  const lake = openLake({ pool: db.pool, warehouse: wh.uri });
  const t = await lake.createTable('sales.big', { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'] });
  const a = await t.append([branchBatch(branchRows(1, 0, 5))]);
  const b = await t.append([branchBatch(branchRows(1, 5, 10))]);
  await giveSnapshotIds(t, db.pool, new Map([[String(a.snapshotId), BIG_A], [String(b.snapshotId), BIG_B]]));
  const c = await t.append([branchBatch(branchRows(1, 10, 15))]);
  const id = String(c.snapshotId);

  const body = await load('sales/tables/big');
  expect(ids(body, 'snapshot-id')).toEqual(expect.arrayContaining([BIG_A, BIG_B, id]));
  expect(new Set(ids(body, 'snapshot-id'))).toEqual(new Set([BIG_A, BIG_B, id]));
  expect(ids(body, 'parent-snapshot-id')).toEqual([BIG_A, BIG_B]);
  expect(ids(body, 'current-snapshot-id')).toEqual([id]);

  await lake.createTable('sales.empty', { schema: BRANCH_SCHEMA });
  expect(ids(await load('sales/tables/empty'), 'current-snapshot-id')).toEqual(['-1']);

  const server = await startIcebergServer(deps);
  try {
    const client = new IcebergRestCatalog({ baseUrl: server.url, auth: { type: 'bearer', token } });
    const m = await client.loadTable({ namespace: ['sales'], name: 'big' }) as unknown as { 'current-snapshot-id': number; snapshots: { 'snapshot-id': number; 'parent-snapshot-id'?: number }[] };
    // a double-reading client rounds every id alike, so it still finds its current snapshot and parents
    const cur = m.snapshots.find((s) => s['snapshot-id'] === m['current-snapshot-id']);
    expect(cur?.['parent-snapshot-id']).toBe(Number(BIG_B));
    expect((await client.loadTable({ namespace: ['sales'], name: 'empty' }) as unknown as Record<string, unknown>)['current-snapshot-id']).toBe(-1);
  } finally { await server.close(); }
});
