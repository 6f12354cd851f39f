import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { listMigrations, migrate } from './migrate';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase({ template: false }); });
afterAll(async () => { await db.drop(); });

describe('migrate', () => {
  it('applies every migration once, even when two processes start together', async () => {
    const [a, b] = await Promise.all([migrate(db.url), migrate(db.url)]);
    const all = await listMigrations();
    expect([...a.applied, ...b.applied].sort()).toEqual(all);
    const again = await migrate(db.url);
    expect(again.applied).toEqual([]);
    const rows = await db.pool.query('select name from _tributary_migrations order by name');
    expect(rows.rows.map((r) => r.name)).toEqual(all);
  });
});
