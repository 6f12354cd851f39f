import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { withTransaction } from './transaction';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query('CREATE TABLE tx_probe (id int PRIMARY KEY)');
});
afterAll(async () => { await db?.drop(); });

describe('withTransaction', () => {
  it('commits what fn wrote and returns its value', async () => {
    const out = await withTransaction(db.pool, async (c) => { await c.query('INSERT INTO tx_probe VALUES (1), (2)'); return 'done'; });
    expect(out).toBe('done');
    expect((await db.pool.query('SELECT count(*)::int n FROM tx_probe')).rows[0].n).toBe(2);
  });
  it('rolls back everything when fn throws, rethrowing its error', async () => {
    const boom = new Error('boom');
    await expect(withTransaction(db.pool, async (c) => { await c.query('INSERT INTO tx_probe VALUES (3)'); throw boom; })).rejects.toBe(boom);
    await expect(withTransaction(db.pool, async (c) => { await c.query('INSERT INTO tx_probe VALUES (4)'); await c.query('INSERT INTO tx_probe VALUES (1)'); })).rejects.toThrow(/duplicate key/);
    expect((await db.pool.query('SELECT id FROM tx_probe ORDER BY id')).rows.map((r) => r.id)).toEqual([1, 2]);
    // every connection went back to the pool (none left checked out or mid-transaction)
    expect(db.pool.totalCount - db.pool.idleCount).toBe(0);
  });
});
