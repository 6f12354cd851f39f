// A CDC stream in a process of its own for lib/cdc/cdc-stream.test.ts, so the test can kill -9 it
// mid-flush. Prints `FLUSHED <lsn>` after each flush was committed and acknowledged. Not part of
// the product.
import { createPool } from '../db/pool';
import { openLake } from '../lake';
import { silentLogger } from '../log';
import { parseTablesConfig } from '../config/tables-json';
import { runStream } from '../cdc/stream';

const cfg = JSON.parse(process.argv[2]) as { db: string; warehouse: string; source: string; branch: string; tables: unknown; flushIntervalMs: number; flushRows: number };
const pool = createPool(cfg.db, { max: 4 });
const ac = new AbortController();
process.on('SIGTERM', () => ac.abort());
await runStream({
  pool, lake: openLake({ pool, warehouse: cfg.warehouse }), branch: cfg.branch, source: { connectionString: cfg.source },
  tables: parseTablesConfig(cfg.tables), logger: silentLogger, runId: 'cdc-child', signal: ac.signal,
  flushIntervalMs: cfg.flushIntervalMs, flushRows: cfg.flushRows,
  onFlush: (f) => process.stdout.write(`FLUSHED ${f.lsn} ${f.rows}\n`),
});
await pool.end();
