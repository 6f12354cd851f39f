// `cdc setup` in a process of its own for lib/cdc/setup-kill.test.ts, so the test can kill -9 it
// while the initial load reads in the slot's exported snapshot. The load is lib/etl's INITIAL, one
// table at a time; after each table it prints `LOADED <table>` and loads the next only once the
// test writes a line to stdin: a load "slow enough" that a kill lands between two tables, every
// time. Prints `SETUP <startLsn>` when setup finished. Not part of the product.
import readline from 'node:readline';
import { createPool } from '../db/pool';
import { openLake } from '../lake';
import { silentLogger } from '../log';
import { parseTablesConfig } from '../config/tables-json';
import { setupBranch } from '../cdc/setup-branch';
import { snapshotInitialLoad } from './snapshot-load';

const cfg = JSON.parse(process.argv[2]) as { db: string; warehouse: string; source: string; branch: string; tables: unknown; staging: string };
const pool = createPool(cfg.db, { max: 4 });
const lake = openLake({ pool, warehouse: cfg.warehouse });
const tables = parseTablesConfig(cfg.tables);
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const r = await setupBranch({
  pool, lake, branch: cfg.branch, namespace: 'etl', source: { connectionString: cfg.source }, tables, logger: silentLogger,
  initialLoad: async (snapshot) => {
    for (const [i, def] of tables.entries()) {
      if (i > 0) await lines.next();
      await snapshotInitialLoad({ pool, lake, url: cfg.source, branch: cfg.branch, tables: [def], staging: () => cfg.staging })(snapshot);
      process.stdout.write(`LOADED ${def.lakeName}\n`);
    }
  },
});
process.stdout.write(`SETUP ${r.startLsn}\n`);
await pool.end();
process.exit(0);
