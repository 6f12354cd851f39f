import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { openLake, type Lake } from '../lake';
import { startLogicalPostgres, type LogicalPostgres } from './logical-pg';
import { createTestDatabase, type TestDatabase } from './pg';

/** What a CDC test streams between: the branch's source, Tributary's database, and a file:// lake. */
export interface CdcTest {
  /** A PostgreSQL with wal_level=logical: the branch. */
  server: LogicalPostgres;
  /** A client on the source, for the test's own DDL and writes. */
  src: pg.Client;
  /** This test file's copy of Tributary's database. */
  db: TestDatabase;
  /** The warehouse folder (removed by `closeCdcTest`). */
  warehouse: string;
  /** A staging folder inside the warehouse, for the initial load. */
  staging: string;
  lake: Lake;
}

/**
 * Start what a CDC test needs, its warehouse under `dir` (a folder of the repository, so chdb
 * and icebird read it as the product does). `closeCdcTest` takes it down.
 */
export async function openCdcTest(dir: string): Promise<CdcTest> {
  const server = await startLogicalPostgres();
  const db = await createTestDatabase();
  const warehouse = path.resolve(dir, `.test-warehouse-${crypto.randomBytes(4).toString('hex')}`);
  await fs.mkdir(warehouse, { recursive: true });
  const staging = await fs.mkdtemp(path.join(warehouse, 'staging-'));
  const lake = openLake({ pool: db.pool, warehouse: `file://${warehouse}` });
  const src = new pg.Client({ connectionString: server.url });
  await src.connect();
  return { server, src, db, warehouse, staging, lake };
}
