import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { openLake, type Lake, type LakeTable, type Snapshot } from './index';
import { encodeParquet } from './parquet';
import { parseS3Uri } from './storage-s3';
import { BRANCH_SCHEMA, branchBatch, branchCanon, branchRows, installFileFetch, scanRows } from './test-helpers';
import { routeAwsFetchTo, startS3, type TestS3 } from './test-s3';

// remove_orphan_files on a file:// and an s3:// (s3rver) warehouse: a table with several
// commits, a merge, a compaction and an expiry; planted orphans, some old and one fresh; the
// sweep removes exactly the old orphans, and icebird and ClickHouse (chdb) read every snapshot
// still in metadata back as before. The file:// warehouse's folder has a space in its name, so
// the lake's `file:///a%20b` and adopt's `file:///a b` spell the same file two ways; on s3://
// a file is adopted as `s3a://`.

let db: TestDatabase;
let s3: TestS3;
const localDir = path.resolve('lib/lake', `.test-warehouse orphans-${crypto.randomBytes(4).toString('hex')}`);
beforeAll(async () => {
  db = await createTestDatabase();
  s3 = await startS3();
  fs.mkdirSync(localDir, { recursive: true });
  installFileFetch();
  routeAwsFetchTo(s3);
});
afterAll(async () => {
  await db?.drop();
  await s3?.stop();
  fs.rmSync(localDir, { recursive: true, force: true });
});

const SCHEMA = BRANCH_SCHEMA;
const rows = branchRows, batch = branchBatch, canon = branchCanon;
const bytes = (s: string) => new TextEncoder().encode(s);
const DAY = 86_400_000;

async function chdbRows(t: LakeTable, snapshotId: Snapshot['snapshot-id'], endpoint: string): Promise<string[]> {
  const { query } = await import('chdb');
  let from: string;
  if (t.location.startsWith('s3://')) {
    const { bucket, key } = parseS3Uri(t.location);
    from = `icebergS3('${endpoint}/${bucket}/${key}/', 'S3RVER', 'S3RVER')`;
  } else from = `icebergLocal('${path.relative(process.cwd(), fileURLToPath(t.location))}')`;
  const out = query(`SELECT BRANCH_ID, id, name FROM ${from} SETTINGS iceberg_snapshot_id = ${snapshotId}`, 'JSONEachRow');
  return (out.trim() ? out.trim().split('\n').map((l) => JSON.parse(l)) : []).map(canon).sort();
}

async function icebirdRowsAt(t: LakeTable, snapshotId: Snapshot['snapshot-id']): Promise<string[]> {
  const { icebergRead } = await import('icebird');
  const metadata = { ...t.metadata(), 'current-snapshot-id': snapshotId };
  const got = await icebergRead({ tableUrl: t.location, metadata: metadata as never }) as Record<string, unknown>[];
  return got.map(canon).sort();
}

/** A Parquet file of the table's schema (field ids included), as a writer stages it before adopting it. */
async function writeParquet(lake: Lake, t: LakeTable, uri: string, rs: ReturnType<typeof rows>): Promise<void> {
  const fileSchema = new arrow.Schema(t.arrowSchema().fields.map((f) => new arrow.Field(f.name, f.type, true, f.metadata)));
  await lake.storage.write(uri, encodeParquet(fileSchema, [new arrow.RecordBatch(fileSchema, batch(rs).data)], { codec: 'snappy' }));
}

async function listAll(lake: Lake, t: LakeTable): Promise<string[]> {
  return lake.storage.list(t.location);
}

const kinds: [string, () => Lake][] = [
  ['file://', () => openLake({ pool: db.pool, warehouse: localDir, catalogName: 'orph_file' })],
  ['s3://', () => openLake({ pool: db.pool, warehouse: s3.warehouse(), s3: s3.settings, catalogName: 'orph_s3' })],
];

describe.each(kinds)('remove orphan files on %s', (kind, open) => {
  let lake: Lake;
  let t: LakeTable;
  let inner: LakeTable;
  /** Rows each snapshot reads, recorded before any sweep. */
  const atSnapshot = new Map<string, string[]>();
  let orphans: string[] = [];
  let kept: string[] = [];
  let fresh = '';
  /** The sweep's clock: file:// files are aged with utimes, s3rver's LastModified is what it is. */
  let clock: { now?: number; olderThanMs?: number } = {};
  const record = async () => {
    await t.refresh();
    atSnapshot.set(String(t.currentSnapshotId()), (await scanRows(t)).map(canon).sort());
  };

  beforeAll(() => { lake = open(); });

  it('builds a table: commits, an adopted file, a merge, a compaction and an expiry', async () => {
    t = await lake.createTable('orph.t', { schema: SCHEMA, partitionBy: ['BRANCH_ID'], identifierColumns: ['BRANCH_ID', 'id'] });
    await t.append([batch(rows(1, 0, 200)), batch(rows(2, 0, 100))]); await record();
    await t.append([batch(rows(1, 200, 300))]); await record();
    // a file adopted under another spelling of its URI
    const adopted = `${t.location}/data/BRANCH_ID=2/adopted-00001.parquet`;
    await writeParquet(lake, t, adopted, rows(2, 100, 150, '-a'));
    const spelt = kind === 'file://' ? fileURLToPath(adopted) : adopted.replace(/^s3:/, 's3a:');
    expect(spelt).not.toBe(adopted);
    await t.appendDataFiles([spelt]); await record();
    expect((await t.files()).some((f) => f.path === (kind === 'file://' ? `file://${spelt}` : spelt))).toBe(true);
    await t.merge([batch([...rows(1, 250, 350, '-m'), ...rows(2, 120, 130, '-m')])], { keys: ['BRANCH_ID', 'id'] }); await record();
    await t.compact({ partition: { BRANCH_ID: 1 } }); await record();
    await t.append([batch(rows(3, 0, 40))]); await record();
    const r = await t.expireSnapshots({ now: Date.now() + 10 * DAY, maxSnapshotAgeMs: 1, minSnapshotsToKeep: 3 });
    expect(r.expiredSnapshots).toBe(3);
    await t.refresh();
    expect(t.snapshots()).toHaveLength(3);
    // a table in the namespace orph.t lives inside orph.t's folder: its files are not orphans of orph.t
    inner = await lake.createTable('orph.t.inner', { schema: SCHEMA, partitionBy: ['BRANCH_ID'] });
    await inner.append([batch(rows(9, 0, 10))]);
    expect(inner.location.startsWith(`${t.location}/`)).toBe(true);
  });

  it('plants orphans, some old and one fresh', async () => {
    const loc = t.location;
    orphans = [
      `${loc}/data/BRANCH_ID=1/00000-0-uncommitted.parquet`, // a writer that never committed
      `${loc}/metadata/00042-stale.metadata.json`, // a metadata file no log names
      `${loc}/data/nested/deeper/left-over.bin`, // a nested folder
      `${loc}/metadata/.v3.metadata.json.0123456789ab.tmp`, // the lake's own temp file of an interrupted write
    ].sort();
    const hiddenFile = `${loc}/data/_SUCCESS`; // another tool's marker: hidden files are skipped, as Iceberg does
    const sibling = `${loc}x/data/old.parquet`; // outside the location, sharing its prefix
    for (const u of [...orphans, hiddenFile, sibling]) await lake.storage.write(u, bytes(`orphan ${u}`));
    await lake.storage.write(orphans[1], await lake.storage.read(t.metadataLocation()));
    if (kind === 'file://') {
      const old = new Date(Date.now() - 10 * DAY);
      const age = (dir: string) => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) age(p); else fs.utimesSync(p, old, old);
        }
      };
      age(localDir); // every file, referenced ones included: only reachability keeps those
    } else {
      // S3 LastModified has whole seconds: the cutoff lies after every file so far, before the fresh one
      const cutoff = Date.now() + 1;
      while (Math.floor(Date.now() / 1000) * 1000 <= cutoff) await new Promise((r) => setTimeout(r, 100));
      clock = { now: cutoff, olderThanMs: 0 };
    }
    fresh = `${loc}/data/BRANCH_ID=2/00000-9-in-flight.parquet`;
    await lake.storage.write(fresh, bytes('an uncommitted writer, right now'));
    kept = (await listAll(lake, t)).filter((u) => !orphans.includes(u));
    expect(kept).toContain(fresh);
    expect(kept).toContain(hiddenFile);
  });

  it('a dry run lists exactly the old orphans and deletes nothing', async () => {
    const before = await listAll(lake, t);
    const r = await t.removeOrphanFiles({ ...clock, dryRun: true });
    expect(r.dryRun).toBe(true);
    expect(r.orphans.map((o) => o.uri)).toEqual(orphans);
    expect(r.orphans.every((o) => o.size > 0)).toBe(true);
    expect(r.deletedFiles).toBe(0);
    expect(r.recentUnreferenced).toBe(1);
    expect(await listAll(lake, t)).toEqual(before);
  });

  it('the sweep deletes exactly the old orphans, keeps the fresh one and every referenced file', async () => {
    const r = await t.removeOrphanFiles(clock);
    expect(r.orphans.map((o) => o.uri)).toEqual(orphans);
    expect(r.deletedFiles).toBe(orphans.length);
    expect(r.deletedBytes).toBe(r.orphans.reduce((a, o) => a + o.size, 0));
    expect(await listAll(lake, t)).toEqual(kept);
    expect(await lake.storage.exists(`${t.location}x/data/old.parquet`)).toBe(true);
  });

  it('every snapshot still in metadata reads back the same through scan, icebird and ClickHouse', async () => {
    await t.refresh();
    for (const s of t.snapshots()) {
      const want = atSnapshot.get(String(s['snapshot-id']));
      expect(want, `rows recorded for snapshot ${s['snapshot-id']}`).toBeDefined();
      expect((await scanRows(t, { snapshotId: BigInt(s['snapshot-id']) })).map(canon).sort()).toEqual(want);
      expect(await icebirdRowsAt(t, s['snapshot-id'])).toEqual(want);
      expect(await chdbRows(t, s['snapshot-id'], s3.endpoint)).toEqual(want);
    }
    await inner.refresh();
    expect((await scanRows(inner)).map(canon).sort()).toEqual(rows(9, 0, 10).map((r) => canon(r)).sort());
  });

  it('a second sweep finds nothing', async () => {
    const r = await t.removeOrphanFiles(clock);
    expect(r.orphans).toEqual([]);
    expect(r.deletedFiles).toBe(0);
    expect(await listAll(lake, t)).toEqual(kept);
  });
});

describe('a commit that lands while the sweep lists', () => {
  it('keeps the files it references, however old they are', async () => {
    const lake = openLake({ pool: db.pool, warehouse: localDir, catalogName: 'orph_race' });
    const t = await lake.createTable('race.t', { schema: SCHEMA, partitionBy: ['BRANCH_ID'] });
    await t.append([batch(rows(1, 0, 10))]);
    // staged long ago by a writer that commits it only now, after the sweep has listed it
    const staged = `${t.location}/data/BRANCH_ID=1/staged-long-ago.parquet`;
    await writeParquet(lake, t, staged, rows(1, 10, 20, '-s'));
    const old = new Date(Date.now() - 10 * DAY);
    fs.utimesSync(fileURLToPath(staged), old, old);
    const writer = await lake.loadTable('race.t');
    const list = lake.storage.listDetailed;
    Object.assign(lake.storage, {
      async *listDetailed(prefix: string) { yield* list.call(lake.storage, prefix); await writer.appendDataFiles([staged]); },
    });
    try {
      const r = await t.removeOrphanFiles();
      expect(r.orphans).toEqual([]);
    } finally { Object.assign(lake.storage, { listDetailed: list }); }
    expect(fs.existsSync(fileURLToPath(staged))).toBe(true);
    await t.refresh();
    expect((await scanRows(t)).map(canon).sort()).toEqual([...rows(1, 0, 10), ...rows(1, 10, 20, '-s')].map((r) => canon(r)).sort());
  });
});

describe('a JdbcCatalog view row whose metadata lies in the table folder', () => {
  it('keeps the view\'s metadata file without reading it as a table\'s', async () => {
    const lake = openLake({ pool: db.pool, warehouse: localDir, catalogName: 'orph_view' });
    const t = await lake.createTable('vw.t', { schema: SCHEMA, partitionBy: ['BRANCH_ID'] });
    await t.append([batch(rows(1, 0, 10))]);
    const viewMeta = `${t.location}/views/v/metadata/00000-x.metadata.json`;
    await lake.storage.write(viewMeta, new TextEncoder().encode(JSON.stringify({ 'view-uuid': 'fa6506c3-7681-40c8-86dc-e36561f83385', 'format-version': 1, location: `${t.location}/views/v` })));
    const old = new Date(Date.now() - 10 * DAY);
    fs.utimesSync(fileURLToPath(viewMeta), old, old);
    await db.pool.query(`insert into iceberg_tables values ('orph_view', 'vw', 'v', $1, null, 'VIEW')`, [viewMeta]);
    expect((await t.removeOrphanFiles()).orphans).toEqual([]);
    expect(fs.existsSync(fileURLToPath(viewMeta))).toBe(true);
  });
});
