import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake, type LakeTable } from './index';
import { parseS3Uri, type S3Settings } from './storage-s3';
import { BRANCH_SCHEMA, branchBatch, branchCanon, branchRows, installFileFetch, scanRows, type BranchRow } from './test-helpers';
import { routeAwsFetchTo, startS3, type TestS3 } from './test-s3';
import { startFaultProxy, type FaultProxy } from './test-fault-proxy';

// Faults of the object store during append, merge, compaction and expiry (issue 28): a proxy in
// front of the test S3 server answers some requests with 500, 503, 503 SlowDown, or drops the
// connection (before the store sees the request, or after it did it). Each operation either
// fails and leaves the old table, or commits the new one — never a half — and, run again
// until it goes through, ends with the table it should: read back by the lake's own scan,
// icebird and ClickHouse (chdb), all through the store directly.

let db: TestDatabase;
let s3: TestS3;
let proxy: FaultProxy;
let warehouse: string;
const CATALOG = `faults_${Math.random().toString(36).slice(2, 8)}`;
const IDENT = 'sales.orders';

beforeAll(async () => {
  db = await createTestDatabase();
  s3 = await startS3();
  proxy = await startFaultProxy(s3.endpoint);
  warehouse = s3.warehouse();
  installFileFetch();
  routeAwsFetchTo(s3);
});
afterAll(async () => {
  await proxy?.stop();
  await db?.drop();
  await s3?.stop();
});

/** The lake as a writer sees it, through the faulty proxy (the SDK retrying twice, as under a real outage it may run out of tries). */
const faulty = (): Lake => openLake({ pool: db.pool, warehouse, catalogName: CATALOG, s3: { ...s3.settings, endpoint: proxy.endpoint, maxAttempts: 2 } as S3Settings });
/** The lake as a reader sees it, straight to the store. */
const direct = (): Lake => openLake({ pool: db.pool, warehouse, catalogName: CATALOG, s3: s3.settings });

const canon = branchCanon;
const sorted = (rs: Record<string, unknown>[]) => rs.map(canon).sort();

async function chdbAt(t: LakeTable): Promise<string[]> {
  const { query } = await import('chdb');
  const { bucket, key } = parseS3Uri(t.location);
  const snap = t.currentSnapshotId();
  // At the catalog's snapshot: a metadata file a failed commit left behind is not the table (the catalog says which is).
  const out = query(`SELECT BRANCH_ID, id, name FROM icebergS3('${s3.endpoint}/${bucket}/${key}/', 'S3RVER', 'S3RVER')${snap === null ? '' : ` SETTINGS iceberg_snapshot_id = ${snap}`}`, 'JSONEachRow');
  return sorted(out.trim() ? out.trim().split('\n').map((l) => JSON.parse(l)) : []);
}

async function icebirdAt(t: LakeTable): Promise<string[]> {
  const { icebergRead } = await import('icebird');
  const { bucket, key } = parseS3Uri(t.location);
  const name = t.metadataLocation().slice(t.metadataLocation().lastIndexOf('/') + 1);
  return sorted(await icebergRead({ tableUrl: `${s3.endpoint}/${bucket}/${key}`, metadataFileName: name }));
}

/** The committed table's rows, by the lake's own scan (straight to the store). */
async function committedRows(): Promise<{ rows: string[]; table: LakeTable }> {
  const t = await direct().loadTable(IDENT);
  return { rows: sorted(await scanRows(t)), table: t };
}

const model = new Map<string, BranchRow>();
const want = () => [...model.values()].map(canon).sort();

/**
 * Run `op` through the faulty store until it commits (`after` moves the model to
 * the table it should make). After every failed try the catalog names either
 * the old metadata — then the rows are exactly the old ones, and the op runs
 * again — or a new one, whose rows are exactly the new ones (the commit went
 * through; only its answer was lost). Nothing in between.
 * @returns how many tries failed
 */
async function untilCommitted(name: string, op: (t: LakeTable) => Promise<unknown>, after: () => void, seed: number): Promise<number> {
  const before = want();
  const baseLoc = (await direct().loadTable(IDENT)).metadataLocation();
  after();
  const expected = want();
  let failures = 0;
  for (let attempt = 0; attempt < 40; attempt++) {
    // A burst of faults (half the requests fail) for the first tries, then a store that has mostly recovered.
    proxy.set({ rate: attempt < 5 ? 0.5 : 0.1, seed: seed * 100 + attempt });
    let ok = false;
    try {
      await op(await faulty().loadTable(IDENT));
      ok = true;
    } catch (e) {
      failures++;
      if (process.env.FAULTS_DEBUG) process.stderr.write(`${name} try ${attempt + 1}: ${(e as Error).message.slice(0, 200)}\n`);
      // A store's failure is never reported as a lost file.
      expect((e as Error).message, name).not.toMatch(/: missing /);
    } finally {
      proxy.off();
    }
    const { rows, table } = await committedRows();
    const committed = table.metadataLocation() !== baseLoc;
    expect(ok && !committed, `${name}: a try that said it succeeded must have committed`).toBe(false);
    expect(rows, `${name}: after try ${attempt + 1} (${ok ? 'ok' : 'failed'}, ${committed ? 'committed' : 'not committed'})`).toEqual(committed ? expected : before);
    if (committed) break;
  }
  const { rows, table } = await committedRows();
  expect(table.metadataLocation(), `${name}: committed in the end`).not.toBe(baseLoc);
  expect(rows, `${name}: the finished table`).toEqual(expected);
  expect(await icebirdAt(table), `${name}: icebird`).toEqual(expected);
  expect(await chdbAt(table), `${name}: chdb`).toEqual(expected);
  return failures;
}

describe('lake on s3:// under object-store faults', () => {
  it('append, merge, append, compaction and expiry each end old-or-new, and retried, finish right', async () => {
    await direct().createTable(IDENT, { schema: BRANCH_SCHEMA, partitionBy: ['BRANCH_ID'], identifierColumns: ['BRANCH_ID', 'id'] });
    const put = (rs: BranchRow[]) => () => { for (const r of rs) model.set(`${r.BRANCH_ID}|${r.id}`, r); };
    const failures: Record<string, number> = {};

    const r1 = [...branchRows(1, 0, 400), ...branchRows(2, 0, 300)];
    failures.append = await untilCommitted('append', (t) => t.append([branchBatch(r1)]), put(r1), 1);

    const upd = [...branchRows(1, 350, 500, '-u'), ...branchRows(2, 0, 40, '-u')];
    failures.merge = await untilCommitted('merge', (t) => t.merge([branchBatch(upd)], { keys: ['BRANCH_ID', 'id'] }), put(upd), 2);

    const r2 = branchRows(3, 0, 200);
    failures.append2 = await untilCommitted('second append', (t) => t.append([branchBatch(r2)]), put(r2), 3);

    failures.compact = await untilCommitted('compaction', (t) => t.compact(), () => {}, 4);
    const compacted = await direct().loadTable(IDENT);
    expect((await compacted.files()).some((f) => f.content === 'position-deletes')).toBe(false);

    failures.expire = await untilCommitted('expiry', (t) => t.expireSnapshots({ maxSnapshotAgeMs: 0, minSnapshotsToKeep: 1 }), () => {}, 5);
    expect((await direct().loadTable(IDENT)).snapshots()).toHaveLength(1);

    const injected = proxy.injected();
    // The faults really happened: every kind was injected, and some tries failed for them.
    for (const k of Object.keys(injected)) expect(injected[k as keyof typeof injected], k).toBeGreaterThan(0);
    expect(Object.values(failures).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    console.log('s3 faults injected', injected, 'failed tries per operation', failures);
  }, 600_000);

  it('a commit whose version-hint write fails after the catalog swap reports success (the table is new: a caller told it failed would run it again and double an append)', async () => {
    const rs = branchRows(4, 0, 50);
    const put = () => { for (const r of rs) model.set(`${r.BRANCH_ID}|${r.id}`, r); };
    proxy.set({ rate: 1, kinds: ['503'], match: (m, p) => m === 'PUT' && p.includes('version-hint.text') });
    try {
      await (await faulty().loadTable(IDENT)).append([branchBatch(rs)]);
    } finally { proxy.off(); }
    expect(proxy.injected()['503']).toBeGreaterThan(0);
    put();
    expect((await committedRows()).rows).toEqual(want());
  });
});
