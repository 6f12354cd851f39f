import { afterAll, beforeAll } from 'vitest';
import { createApiToken, createUser } from '../auth';
import { parseEnv } from '../config/env';
import { createPrisma, type Db } from '../db/prisma';
import { openLake, type Lake } from '../lake';
import { makeWarehouse } from '../lake/test-helpers';
import { startIcebergServer } from '../iceberg-rest/test-server';
import { createTestDatabase, type TestDatabase } from './pg';

/** What a served-catalog test works with; filled in by the file's `beforeAll`. */
export interface ServedCatalog {
  db: TestDatabase;
  lake: Lake;
  /** The served catalog's base URL (`…/iceberg`). */
  url: string;
  /** A viewer's API token (user `vera`), as a REST client sends it. */
  token: string;
}

/**
 * Registers the file's beforeAll/afterAll: a test database, a lake in a fresh
 * file:// warehouse filled by `fill`, a viewer with an API token named
 * `tokenName`, and the catalog served over HTTP; all removed after the file.
 */
export function useServedCatalog(o: { tokenName: string; fill(lake: Lake): Promise<unknown> }): ServedCatalog {
  const fx = {} as ServedCatalog;
  const wh = makeWarehouse();
  let prisma: Db | undefined;
  let server: { url: string; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    fx.db = await createTestDatabase();
    prisma = createPrisma(fx.db.url, { max: 2 });
    const env = parseEnv({ TRIBUTARY_DATA_DIR: '/tmp/unused', TRIBUTARY_WAREHOUSE: wh.uri } as unknown as NodeJS.ProcessEnv);
    await createUser(prisma, { name: 'vera', password: 'viewer-pass-1', role: 'viewer' });
    fx.token = (await createApiToken(prisma, { user: 'vera', name: o.tokenName })).token;
    fx.lake = openLake({ pool: fx.db.pool, warehouse: env.warehouse, s3: env.s3 });
    await o.fill(fx.lake);
    server = await startIcebergServer({ env, pool: fx.db.pool, prisma });
    fx.url = server.url;
  });
  afterAll(async () => {
    await server?.close();
    await prisma?.$disconnect();
    await fx.db?.drop();
    wh.remove();
  });
  return fx;
}
