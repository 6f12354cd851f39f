import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { withTransaction } from './with-transaction';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase({ template: false }); await db.pool.query('create table t (v int primary key)'); });
afterAll(async () => { await db?.drop(); });

const rows = async () => (await db.pool.query('select v from t order by v')).rows.map((r) => r.v);

describe('withTransaction', () => {
  it('commits what the function wrote', async () => {
    await expect(withTransaction(db.pool, async (c) => { await c.query('insert into t values (1), (2)'); return 'ok'; })).resolves.toBe('ok');
    expect(await rows()).toEqual([1, 2]);
  });
  it('rolls everything back when it throws, and rethrows', async () => {
    await expect(withTransaction(db.pool, async (c) => { await c.query('insert into t values (3)'); await c.query('insert into t values (1)'); })).rejects.toMatchObject({ code: '23505' });
    expect(await rows()).toEqual([1, 2]);
  });
  it('leaves the pool usable afterwards', async () => {
    for (let i = 0; i < 8; i++) await withTransaction(db.pool, async () => { throw new Error('no'); }).catch(() => 'expected');
    expect((await db.pool.query('select 1 as one')).rows[0].one).toBe(1);
  });
});
