import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { queryBranch } from '../testing/branch-fixtures';
import { silentLogger } from '../log';
import { openLake, type Lake } from '../lake';
import { createPostgresSource } from '../sources';
import { parseTablesConfig } from '../config/tables-json';
import { DEFAULT_SETTINGS, lakeTarget, runEtl, type BranchHandle } from '../etl';
import { chdbRows, icebirdRows, loadChdb, norm } from '../etl/test-lake-readers';
import { DqRequest } from './request';
import { runDq, type DqOptions } from './run';
import { openPostgresDqSource } from './source';

// DQ without blind spots, on a real Postgres branch loaded by the ETL into a real lake: a table whose
// data is all before 2026 (the old default --since 2026-01-01 gave it an empty window reported OK),
// a timestamp moved by 0.4 s (compared to the second it was OK), and a composite key with a
// sub-second timestamp (payment: its repair came back PARTIAL, deleted 0, no reason).
let db: TestDatabase;
let lake: Lake;
let warehouse: string;
let staging: string;
let src: { url: string; drop(): Promise<void> };
const tables = parseTablesConfig([
  { table: 'rent.rental', unique_key: 'rental_id', cdc_column: 'updated_at', where_date_column: 'rental_date' },
  { table: 'rent.payment', unique_key: ['payment_id', 'payment_date'], cdc_column: 'updated_at', where_date_column: 'payment_date' },
]);
const sql = (text: string) => queryBranch(src.url, text);
const dq = (o: DqOptions & { tables?: string[] } = {}) => runDq(
  { pool: db.pool, lake, tables: tables.filter((t) => !o.tables || o.tables.includes(t.lakeName)), branches: [{ key: 'b0', open: () => openPostgresDqSource({ branch: 'b0', connectionString: src.url }) }], logger: silentLogger },
  { write: false, ...o },
);

beforeAll(async () => {
  await loadChdb();
  db = await createTestDatabase();
  warehouse = await fs.mkdtemp(path.join(process.cwd(), 'lib/dq/.test-warehouse-'));
  staging = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-prec-'));
  src = await createScratchDatabase('dqprec');
  await sql(`
    CREATE SCHEMA rent;
    CREATE TABLE rent.rental (rental_id int PRIMARY KEY, rental_date timestamp(6) NOT NULL, return_date timestamp(6), updated_at timestamp(6) NOT NULL);
    INSERT INTO rent.rental SELECT g, '2022-05-24 22:53:30'::timestamp + g * interval '1 hour', '2022-05-26 10:00:00.5'::timestamp + g * interval '1 hour', '2022-07-27 00:00:00'
      FROM generate_series(1, 120) g;
    CREATE TABLE rent.payment (payment_id int, payment_date timestamp(6), amount numeric(5,2), updated_at timestamp(6) NOT NULL, PRIMARY KEY (payment_id, payment_date));
    -- each id twice, 0.25 s and 0.75 s past the same second: cut to the second, the two keys are one
    INSERT INTO rent.payment SELECT g, '2022-05-01 10:00:00.25'::timestamp + g * interval '1 minute', 1.99, '2022-06-01' FROM generate_series(1, 50) g;
    INSERT INTO rent.payment SELECT g, '2022-05-01 10:00:00.75'::timestamp + g * interval '1 minute', 4.99, '2022-06-01' FROM generate_series(1, 50) g;`);
  lake = openLake({ pool: db.pool, warehouse: `file://${warehouse}` });
  const branches: BranchHandle[] = [{ key: 'b0', source: createPostgresSource({ branch: 'b0', connectionString: src.url, poolSize: 2 }) }];
  try {
    const r = await runEtl({ pool: db.pool, target: lakeTarget(lake, { namespace: 'etl' }), branches, tables, settings: { ...DEFAULT_SETTINGS, mode: 'INITIAL', retries: 0 }, logger: silentLogger, stagingRoot: staging });
    expect(r.units.filter((u) => u.status !== 'SUCCESS')).toEqual([]);
  } finally { await branches[0].source.close(); }
});

afterAll(async () => {
  await src?.drop();
  await db?.drop();
  await fs.rm(warehouse, { recursive: true, force: true });
  await fs.rm(staging, { recursive: true, force: true });
});

describe('dq window and precision', () => {
  it('the default window covers the data the table holds (all of it before 2026)', async () => {
    const r = await dq();
    for (const u of r.results) {
      expect(u, u.table).toMatchObject({ status: 'OK', windowStart: null, rowCountDelta: 0 });
      expect(u.windowNote).toMatch(/no --since: the whole table/);
    }
    expect(r.results.find((u) => u.table === 'rental')!.oracleRowCount).toBe(120);
    expect(r.results.find((u) => u.table === 'payment')!.oracleRowCount).toBe(100);
  });

  it('a window whose start is after its end is an error naming both ends', async () => {
    const r = await dq({ since: '2026-01-01', tables: ['rental'] });
    const u = r.results[0];
    expect(u.status).toBe('ERROR');
    expect(u.errorDetails).toMatch(/start 2026-01-01 is after its end 2022-05-29 22:53:30/);
    expect(r.ok).toBe(false);
    const bad = DqRequest.safeParse({ since: '2026-05-01', until: '2026-01-01' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0].message).toMatch(/2026-05-01 … 2026-01-01/);
  });

  it('a timestamp moved by 0.4 s is a mismatch of that column; repair restores the microseconds', async () => {
    await sql(`UPDATE rent.rental SET return_date = return_date + interval '0.4 second' WHERE rental_id = 7`); // CDC column not moved
    const r = await dq({ tables: ['rental'] });
    const u = r.results[0];
    expect(u).toMatchObject({ status: 'MISMATCH', hashMismatch: 1, hashOnlyInOracle: 0, hashOnlyInIceberg: 0 });
    expect(u.exampleKeys).toMatchObject({ hash_mismatch: [{ key: { rental_id: '7' }, columns: ['return_date'] }] });
    const fixed = await dq({ tables: ['rental'], repair: true });
    expect(fixed.results[0]).toMatchObject({ status: 'OK', repair: { status: 'REPAIRED', merged: { rows: 1, updated: 1 } } });
    const t = await lake.loadTable('etl.rental');
    expect(chdbRows(t, (f) => `SELECT toString(return_date) AS d FROM ${f} WHERE rental_id = 7`).map((x) => norm(x.d))).toEqual(['2022-05-26 17:00:00.9']);
  });

  it('repair and repair-deletes on a composite key with a sub-second timestamp touch exactly the differing rows', async () => {
    await sql(`DELETE FROM rent.payment WHERE payment_id = 7 AND payment_date = '2022-05-01 10:07:00.25';
      UPDATE rent.payment SET amount = 5.55 WHERE payment_id = 8 AND payment_date = '2022-05-01 10:08:00.75'`);
    const t = await lake.loadTable('etl.payment');
    const lost = await t.deleteWhere({ partition: { BRANCH_ID: 'b0' }, keys: { columns: ['payment_id', 'payment_date'], values: [['9', '2022-05-01 10:09:00.25']] } });
    expect(lost.deleted).toBe(1); // exactly the one row: its sibling 0.5 s later stays

    const r = await dq({ tables: ['payment'] });
    expect(r.results[0]).toMatchObject({ status: 'MISMATCH', hashOnlyInOracle: 1, hashOnlyInIceberg: 1, hashMismatch: 1 });
    expect(r.results[0].exampleKeys).toMatchObject({
      only_in_source: [{ payment_id: '9', payment_date: '2022-05-01 10:09:00.25' }],
      only_in_lake: [{ payment_id: '7', payment_date: '2022-05-01 10:07:00.25' }],
      hash_mismatch: [{ key: { payment_id: '8', payment_date: '2022-05-01 10:08:00.75' }, columns: ['amount'] }],
    });
    const fixed = await dq({ tables: ['payment'], repair: true, repairDeletes: true });
    expect(fixed.results[0]).toMatchObject({ status: 'OK', repair: { status: 'REPAIRED', deleted: 1, merged: { rows: 2, inserted: 1, updated: 1 } } });
    expect((fixed.results[0].repair as { note?: string }).note).toBeUndefined();

    // the lake equals the source row for row, read by ClickHouse and icebird
    const want = (await sql(`SELECT payment_id, payment_date::text AS d, amount::text AS a FROM rent.payment`)).map((x) => `${x.payment_id}|${norm(x.d)}|${norm(x.a)}`).sort();
    await t.refresh();
    expect(chdbRows(t, (f) => `SELECT payment_id AS i, toString(payment_date) AS d, toString(amount) AS a FROM ${f}`).map((x) => `${x.i}|${norm(x.d)}|${norm(x.a)}`).sort()).toEqual(want);
    const ib = (await icebirdRows(t)).map((x) => {
      const us = BigInt(x.payment_date instanceof Date ? x.payment_date.getTime() * 1000 : (x.payment_date as bigint | number));
      return `${x.payment_id}|${us}`;
    }).sort();
    const wantUs = (await sql(`SELECT payment_id, (extract(epoch FROM payment_date) * 1000000)::bigint::text AS us FROM rent.payment`)).map((x) => `${x.payment_id}|${x.us}`).sort();
    expect(ib).toEqual(wantUs);
    expect((await dq({ tables: ['payment'] })).results[0]).toMatchObject({ status: 'OK', hashTotalDelta: 0 });
  });

  it('a repair that cannot finish says why', async () => {
    // a key only in the lake, kept without --repair-deletes: PARTIAL, and the note says what is left
    await sql(`DELETE FROM rent.payment WHERE payment_id = 20 AND payment_date = '2022-05-01 10:20:00.75'`);
    const r = await dq({ tables: ['payment'], repair: true });
    expect(r.results[0]).toMatchObject({ status: 'MISMATCH', repair: { status: 'PARTIAL' } });
    expect((r.results[0].repair as { note: string }).note).toMatch(/1 key\(s\) only in the lake kept \(pass --repair-deletes/);
  });
});
