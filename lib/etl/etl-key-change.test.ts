import { beforeAll, describe, expect, it } from 'vitest';
import type { Lake } from '../lake';
import { parseTablesConfig } from '../config/tables-json';
import { branchSql, etlRunner, useEtlLake } from '../testing/etl-lake-fixture';
import { queryBranch } from '../testing/branch-fixtures';
import { chdbRows, loadChdb } from './test-lake-readers';

// tables.json's unique_key against the lake table's key (its identifier fields): an INCREMENTAL
// whose entry names fewer key columns than the table was created with merged two rows into one and
// reported SUCCESS (independent smoke test, session 20). It is refused now, and the lake kept as it was.
const entry = (unique_key: string | string[]) => parseTablesConfig([{ table: 'EV.EVENTS', unique_key, cdc_column: 'UPDATED_AT', category: 'masters' }]);
let lake: Lake;
const fx = useEtlLake({
  name: 'key', count: 1,
  seed: (url) => queryBranch(url, `CREATE SCHEMA ev; CREATE TABLE ev.events (event_id text, at timestamp, payload text, updated_at timestamp, PRIMARY KEY (event_id, at));
    INSERT INTO ev.events SELECT 'ev-' || (g % 10), timestamp '2024-01-01' + g * interval '1 hour', 'p' || g, timestamp '2024-01-01' FROM generate_series(1, 30) g`),
});
const sql = branchSql(fx);
const rows = async () => chdbRows(await lake.loadTable('ev.events'), (from) => `SELECT event_id, toString(at) at, payload FROM ${from} ORDER BY event_id, at`);

beforeAll(async () => {
  lake = fx.lake;
  await loadChdb();
  const init = await etlRunner(fx, { namespace: 'ev', tables: entry(['EVENT_ID', 'AT']), settings: { namespace: 'ev' } })('INITIAL');
  expect(init.units.map((u) => u.status)).toEqual(['SUCCESS']);
});

describe('an INCREMENTAL whose unique_key is not the lake table\'s key', () => {
  it('is refused naming both keys; the lake keeps every row; with the table\'s key the same changes load', async () => {
    const before = await rows();
    expect(before).toHaveLength(30);
    // one row of a key the lake holds three times: an extract with no repeated key, which a merge by event_id alone would fold
    await sql(0, `UPDATE ev.events SET payload = 'changed', updated_at = timestamp '2025-01-01' WHERE event_id = 'ev-7' AND at = (SELECT min(at) FROM ev.events WHERE event_id = 'ev-7')`);
    const narrowed = await etlRunner(fx, { namespace: 'ev', tables: entry('EVENT_ID'), settings: { namespace: 'ev' } })('INCREMENTAL');
    expect(narrowed.ok).toBe(false);
    expect(narrowed.units[0].status).not.toBe('SUCCESS');
    expect(narrowed.units[0].error).toMatch(/unique_key \(event_id\) is not the lake table's key \(event_id, at\): a merge by another key would fold rows the table keeps apart into one/);
    expect(await rows()).toEqual(before);
    const right = await etlRunner(fx, { namespace: 'ev', tables: entry(['EVENT_ID', 'AT']), settings: { namespace: 'ev' } })('INCREMENTAL');
    expect(right.units.map((u) => [u.status, u.rows])).toEqual([['SUCCESS', 1]]);
    const after = await rows();
    expect(after).toHaveLength(30);
    expect(after.filter((r) => r.payload === 'changed')).toHaveLength(1);
  });
});
