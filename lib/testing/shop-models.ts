import { afterAll, beforeAll } from 'vitest';
import { makeModelsWarehouse, makeShopLake, SHOP_PROJECT, writeProject } from '../models/test-project';
import { createTestDatabase, type TestDatabase } from './pg';

/** What a models test over the shop lake works with; filled in by the file's `beforeAll`. */
export interface ShopModels {
  db: TestDatabase;
  /** The warehouse folder (inside the data folder, as the embedded ClickHouse needs). */
  wh: ReturnType<typeof makeModelsWarehouse>;
  /** The project written: SHOP_PROJECT with the test's own files over it. */
  proj: ReturnType<typeof writeProject>;
}

/**
 * Registers the file's beforeAll/afterAll: a test database, a models
 * warehouse with the shop lake (makeShopLake) in it, and a project of
 * SHOP_PROJECT plus `files` (path → text, replacing a file of the same path);
 * all removed after the file.
 */
export function useShopModels(files: Record<string, string> = {}): ShopModels {
  const fx = {} as ShopModels;
  beforeAll(async () => {
    fx.db = await createTestDatabase();
    fx.wh = makeModelsWarehouse();
    await makeShopLake(fx.db.pool, fx.wh.uri);
    fx.proj = writeProject({ ...SHOP_PROJECT, ...files });
  });
  afterAll(async () => { await fx.db?.drop(); fx.wh?.remove(); fx.proj?.remove(); });
  return fx;
}
