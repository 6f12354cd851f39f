import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { getWatermarks } from './control-state';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

describe('getWatermarks', () => {
  it('returns the committed watermark of each asked branch that has one', async () => {
    await db.pool.query(`INSERT INTO etl_meta.control_state (namespace, table_name, branch_id, last_cdc_value, last_date_value, last_run_id, last_mode, updated_at)
      VALUES ('etl', 't', 'b0', '2024-01-02 00:00:00', NULL, 'r', 'INITIAL', now()), ('etl', 't', 'b1', '7', '2024-01-01', 'r', 'INITIAL', now()),
        ('etl', 'u', 'b0', '9', NULL, 'r', 'INITIAL', now()), ('probe', 't', 'b0', 'LAST', NULL, 'r', 'INITIAL', now())`);
    const wm = await getWatermarks(db.pool, { namespace: 'etl', table: 't' }, ['b0', 'b2']);
    expect([...wm]).toEqual([['b0', { cdc: '2024-01-02 00:00:00', date: null }]]);
  });
});
