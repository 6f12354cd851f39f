import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from './pg';
import { openLake, type Lake } from '../lake';
import { createPostgresSource } from '../sources';
import type { BranchHandle } from '../etl/runner';
import { loadChdb } from '../etl/test-lake-readers';
import { runEtl } from '../etl/runner';
import { lakeTarget } from '../etl/lake-target';
import { DEFAULT_SETTINGS, type EtlSettings } from '../etl/settings';
import type { TableDef } from '../config/tables-json';
import { silentLogger } from '../log';
import { queryBranch } from './branch-fixtures';

/** What an ETL-into-the-lake test works with; filled in by the file's `beforeAll`. */
export interface EtlLake {
  db: TestDatabase;
  lake: Lake;
  staging: string;
  /** The branch databases, in order (b0, b1, …). */
  scratch: { url: string; drop(): Promise<void> }[];
  branches: BranchHandle[];
}

/**
 * The setup the ETL lake tests share: chdb loaded, a test database, a lake in a
 * fresh folder under lib/etl (chdb reads only below its working directory), a
 * staging folder, `count` scratch branch databases each seeded by `seed` (the
 * database is in `scratch` before its seed runs), and a Postgres source on each
 * (keys b0, b1, …). Registers the file's beforeAll/afterAll; everything is
 * removed after the file.
 */
export function useEtlLake(o: { name: string; count: number; seed(url: string, i: number): Promise<unknown> }): EtlLake {
  const fx = { scratch: [] as EtlLake['scratch'] } as EtlLake;
  let warehouse: string | undefined;
  beforeAll(async () => {
    await loadChdb();
    fx.db = await createTestDatabase();
    warehouse = path.resolve('lib/etl', `.test-warehouse-${crypto.randomBytes(4).toString('hex')}`);
    await fs.mkdir(warehouse, { recursive: true });
    fx.staging = await fs.mkdtemp(path.join(os.tmpdir(), `etl-${o.name}-`));
    fx.lake = openLake({ pool: fx.db.pool, warehouse: `file://${warehouse}` });
    for (let i = 0; i < o.count; i++) {
      const s = await createScratchDatabase(o.name);
      fx.scratch.push(s);
      await o.seed(s.url, i);
    }
    fx.branches = fx.scratch.map((s, i) => ({ key: `b${i}`, source: createPostgresSource({ branch: `b${i}`, connectionString: s.url, poolSize: 2 }) }));
  });
  afterAll(async () => {
    await Promise.all((fx.branches ?? []).map((b) => b.source.close()));
    for (const s of fx.scratch) await s.drop();
    await fx.db?.drop();
    if (warehouse) await fs.rm(warehouse, { recursive: true, force: true });
    if (fx.staging) await fs.rm(fx.staging, { recursive: true, force: true });
  });
  return fx;
}

/**
 * The ETL run an ETL-into-the-lake test repeats: `run(mode, hoursLater)` over
 * the fixture's branches into `namespace` of its lake, retries off, with the
 * test's own settings, and the clock `hoursLater` hours ahead (a date
 * watermark moves with it).
 */
export function etlRunner(fx: EtlLake, o: { namespace: string; tables: TableDef[]; settings?: Partial<EtlSettings> }) {
  return (mode: EtlSettings['mode'], hoursLater = 0) => runEtl({
    pool: fx.db.pool, target: lakeTarget(fx.lake, { namespace: o.namespace }), branches: fx.branches, tables: o.tables,
    settings: { ...DEFAULT_SETTINGS, retries: 0, retryDelayMs: 10, ...o.settings, mode }, logger: silentLogger, stagingRoot: fx.staging,
    now: () => new Date(Date.now() + hoursLater * 3_600_000),
  });
}

/** SQL on the fixture's branch database `i` (b0, b1, …). */
export const branchSql = (fx: EtlLake) => (i: number, text: string) => queryBranch(fx.scratch[i].url, text);
