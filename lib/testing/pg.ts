import crypto from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool } from '../db/pool';

export interface TestDatabase {
  /** URL of a fresh, migrated database private to this test file. */
  url: string;
  /** Admin URL of the test server (database `postgres`), for creating more databases. */
  adminUrl: string;
  pool: pg.Pool;
  /** Drops the database; fails if pools to it are still open. */
  drop(): Promise<void>;
}

function assertLocal(url: string) {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) throw new Error(`testing: refusing non-local database ${host}`);
}

/** Create a fresh database for one test file, cloned from the migrated template. */
export async function createTestDatabase(opts: { template?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  assertLocal(adminUrl);
  const name = `t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const template = opts.template === false ? 'template0' : 'tributary_template';
    for (let attempt = 0; ; attempt++) {
      try { await admin.query(`create database ${name} template ${template}`); break; } catch (e) {
        // Two files cloning the template at the same instant: retry briefly.
        if ((e as { code?: string }).code !== '55006' || attempt > 50) throw e;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally { await admin.end(); }
  const url = adminUrl.replace(/\/postgres$/, `/${name}`);
  const pool = createPool(url, { max: 5 });
  return {
    url, adminUrl, pool,
    drop: async () => {
      await pool.end();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try { await c.query(`drop database if exists ${name} with (force)`); } finally { await c.end(); }
    },
  };
}

/** Create an extra empty database on the test server (e.g. a branch source); returns its URL. */
export async function createScratchDatabase(prefix = 's'): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = inject('pgAdminUrl');
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try { await c.query(`create database ${name} template template0`); } finally { await c.end(); }
  return {
    url: adminUrl.replace(/\/postgres$/, `/${name}`),
    drop: async () => {
      const d = new pg.Client({ connectionString: adminUrl });
      await d.connect();
      try { await d.query(`drop database if exists ${name} with (force)`); } finally { await d.end(); }
    },
  };
}
