import fs from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import { createConnection } from '../connections';
import { makeSource, SOURCE_DDL, sql, tmpDir } from '../slices/run/test-fixtures';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from './pg';

/** The databases and folder a slices test copies between. */
export interface SliceDatabases {
  db: TestDatabase;
  /** Source database holding `public.src` (SOURCE_DDL, `rows` rows). */
  src: { url: string; drop(): Promise<void> };
  /** Target database holding an empty `public.tgt` (and what `targetSql` adds). */
  tgt: { url: string; drop(): Promise<void> };
  dir: string;
}

/**
 * Registers the file's beforeAll/afterAll: a test database, a source with
 * `rows` rows in `public.src`, a target with an empty `public.tgt`, a temp
 * folder; with `connections`, connections `src` and `tgt` naming them (jobs
 * name their source and target by connection; they never carry a URL).
 */
export function useSliceDatabases(o: { rows: number; targetSql?: string; connections?: boolean }): SliceDatabases {
  const fx = {} as SliceDatabases;
  beforeAll(async () => {
    fx.db = await createTestDatabase();
    fx.src = await createScratchDatabase('src');
    fx.tgt = await createScratchDatabase('tgt');
    fx.dir = await tmpDir();
    await makeSource(fx.src.url, 'public.src', o.rows);
    await sql(fx.tgt.url, `create table public.tgt ${SOURCE_DDL}${o.targetSql ? `;\n${o.targetSql}` : ''}`);
    if (o.connections) {
      const conns = { pool: fx.db.pool, keys: { dataDir: fx.dir } };
      await createConnection(conns, { name: 'src', kind: 'postgres', secrets: { url: fx.src.url } });
      await createConnection(conns, { name: 'tgt', kind: 'postgres', secrets: { url: fx.tgt.url } });
    }
  });
  afterAll(async () => {
    await fx.db?.drop();
    await fx.src?.drop();
    await fx.tgt?.drop();
    if (fx.dir) await fs.rm(fx.dir, { recursive: true, force: true });
  });
  return fx;
}
