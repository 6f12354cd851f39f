// Browsing a real PostgreSQL source's catalog for the Tables page: schemas,
// tables (a partitioned table once, not its partitions; views), columns with
// their own types (enums, domains, arrays), primary keys and watermark candidates.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { browseCatalog } from './browse-catalog';
import { createConnection } from './store';

let db: TestDatabase;
let src: { url: string; drop(): Promise<void> };
let dataDir: string;
const keys = () => ({ secret: 'catalog-test-secret-0123456789', dataDir });

beforeAll(async () => {
  db = await createTestDatabase();
  src = await createScratchDatabase('catalog');
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-catalog-'));
  const c = new pg.Client({ connectionString: src.url });
  await c.connect();
  await c.query(`
    create schema shop;
    create type shop.mood as enum ('happy', 'sad');
    create domain shop.year as int check (value > 1900);
    create table shop.customers (id int primary key, name text, mood shop.mood, born shop.year, tags text[], last_update timestamptz not null default now());
    create table shop.payment (payment_id int, payment_date timestamptz, amount numeric(8,2), primary key (payment_id, payment_date)) partition by range (payment_date);
    create table shop.payment_2022 partition of shop.payment for values from ('2022-01-01') to ('2023-01-01');
    create view shop.customer_names as select id, name from shop.customers;`);
  await c.end();
  await createConnection({ pool: db.pool, keys: keys() }, { name: 'shop-src', kind: 'postgres', secrets: { url: src.url } });
  await createConnection({ pool: db.pool, keys: keys() }, { name: 'mailer', kind: 'smtp', params: { host: 'x', from: 'a@b.c' } });
});
afterAll(async () => { await db?.drop(); await src?.drop(); fs.rmSync(dataDir, { recursive: true, force: true }); });

describe('browseCatalog', () => {
  const ctx = () => ({ pool: db.pool, keys: keys() });
  it('lists the schemas the user can read, without the system ones', async () => {
    const r = await browseCatalog(ctx(), 'shop-src');
    expect(r.engine).toBe('postgres');
    expect(r.schemas).toContain('shop');
    expect(r.schemas).toContain('public');
    expect(r.schemas).not.toContain('pg_catalog');
    expect(r.schemas).not.toContain('information_schema');
  });

  it('lists tables with columns, keys and watermark candidates; a partitioned table once', async () => {
    const r = await browseCatalog(ctx(), 'shop-src', { schema: 'shop' });
    const by = Object.fromEntries(r.tables!.map((t) => [t.table, t]));
    expect(Object.keys(by).sort()).toEqual(['shop.customer_names', 'shop.customers', 'shop.payment']);
    expect(by['shop.payment']).toMatchObject({ kind: 'partitioned table', primaryKey: ['payment_id', 'payment_date'] });
    expect(by['shop.customers'].primaryKey).toEqual(['id']);
    expect(by['shop.customer_names']).toMatchObject({ kind: 'view', primaryKey: [] });
    expect(by['shop.customers'].columns).toEqual([
      { name: 'id', type: 'integer', nullable: false },
      { name: 'name', type: 'text', nullable: true },
      { name: 'mood', type: 'shop.mood', nullable: true },
      { name: 'born', type: 'shop.year', nullable: true },
      { name: 'tags', type: 'text[]', nullable: true },
      { name: 'last_update', type: 'timestamp with time zone', nullable: false },
    ]);
    // A change-time column first; numbers (an increasing id) after; text, enums and arrays never.
    expect(by['shop.customers'].watermarkCandidates.map((c) => c.name)).toEqual(['last_update', 'id']);
    expect(by['shop.payment'].watermarkCandidates.map((c) => c.name)).toEqual(['payment_date', 'payment_id', 'amount']);
  });

  it('refuses a connection that is not a database source, or that does not exist', async () => {
    await expect(browseCatalog(ctx(), 'mailer')).rejects.toMatchObject({ field: 'params.name', message: expect.stringMatching(/smtp connection/) });
    await expect(browseCatalog(ctx(), 'nope')).rejects.toMatchObject({ code: 'not_found' });
  });
});
