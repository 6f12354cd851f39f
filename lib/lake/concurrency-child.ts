/**
 * Child process for the concurrency test: commits to one table as fast as it
 * can while a sibling process does the same.
 * Usage: tsx concurrency-child.ts <dbUrl> <warehouse> <append|merge> <branch> <commits>
 */
import * as arrow from 'apache-arrow';
import { createPool } from '../db/pool';
import { openLake } from './index';
import { batchOf } from './test-helpers';

const [url, warehouse, mode, branchS, commitsS] = process.argv.slice(2);
const branch = Number(branchS), commits = Number(commitsS);
const pool = createPool(url, { max: 2 });
try {
  const lake = openLake({ pool, warehouse });
  const t = await lake.loadTable('c.t');
  const schema = new arrow.Schema([new arrow.Field('b', new arrow.Int32(), false), new arrow.Field('id', new arrow.Int64(), false), new arrow.Field('v', new arrow.Utf8(), true)]);
  let attempts = 0;
  for (let k = 0; k < commits; k++) {
    const rows = Array.from({ length: 50 }, (_, i) => ({ b: branch, id: BigInt(branch * 1_000_000 + (mode === 'merge' ? i + k * 25 : k * 50 + i)), v: `p${branch}-c${k}` }));
    const r = mode === 'merge' ? await t.merge([batchOf(schema, rows)], { keys: ['id'] }) : await t.append([batchOf(schema, rows)]);
    attempts += r.attempts;
  }
  process.stdout.write(JSON.stringify({ attempts }) + '\n');
} finally { await pool.end(); }
