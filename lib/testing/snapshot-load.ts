import type pg from 'pg';
import type { Lake } from '../lake';
import { silentLogger } from '../log';
import type { TableDef } from '../config/tables-json';
import { createPostgresSource } from '../sources';
import { runEtl } from '../etl/runner';
import { lakeTarget } from '../etl/lake-target';
import { DEFAULT_SETTINGS } from '../etl/settings';

/**
 * The INITIAL load `cdc setup` is handed (lib/cdc may not import the ETL, a peer engine): one
 * branch's tables into `etl` read in the slot's exported snapshot. Shared by the CDC and DQ tests.
 */
export function snapshotInitialLoad(o: { pool: pg.Pool; lake: Lake; url: string; branch: string; tables: TableDef[]; staging: () => string }) {
  return async (snapshot: string): Promise<void> => {
    const source = createPostgresSource({ branch: o.branch, connectionString: o.url, poolSize: 2, snapshot });
    try {
      const s = await runEtl({
        pool: o.pool, target: lakeTarget(o.lake, { namespace: 'etl' }), branches: [{ key: o.branch, source }], tables: o.tables,
        settings: { ...DEFAULT_SETTINGS, mode: 'INITIAL', retries: 0 }, logger: silentLogger, stagingRoot: o.staging(),
      });
      if (!s.ok) throw new Error(`initial load failed: ${JSON.stringify(s.units.map((u) => u.error))}`);
    } finally { await source.close(); }
  };
}
