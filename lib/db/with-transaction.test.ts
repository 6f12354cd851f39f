import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { withTransaction } from './with-transaction';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); await db.pool.query('create table wt_t (id int primary key)'); });
afterAll(async () => { await db?.drop(); });

describe('withTransaction', () => {
  it('commits when the body resolves and rolls everything back when it throws', async () => {
    expect(await withTransaction(db.pool, async (c) => { await c.query('insert into wt_t values (1)'); return 'ok'; })).toBe('ok');
    await expect(withTransaction(db.pool, async (c) => {
      await c.query('insert into wt_t values (2)');
      await c.query('insert into wt_t values (1)'); // duplicate key
    })).rejects.toThrow(/duplicate key/);
    expect((await db.pool.query('select array_agg(id order by id) ids from wt_t')).rows[0].ids).toEqual([1]);
    expect(db.pool.totalCount).toBeGreaterThan(0);
    expect(db.pool.waitingCount).toBe(0);
  });
});
