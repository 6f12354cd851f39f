import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { ensureEmbeddedPostgres, ensureDatabase } from '../db/embedded-postgres';
import { migrate } from '../db/migrate';
import { createPool } from '../db/pool';
import { ensureQueue } from '../jobs/queue';

/**
 * Starts one embedded PostgreSQL for the whole test run and migrates a template
 * database; each test file then clones the template (lib/testing/pg.ts).
 */
export default async function setup(project: TestProject) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'tributary-test-'));
  const server = await ensureEmbeddedPostgres(dataDir, { database: 'postgres' });
  const adminUrl = server.url;
  await ensureDatabase(adminUrl, 'tributary_template');
  const templateUrl = adminUrl.replace(/\/postgres$/, '/tributary_template');
  await migrate(templateUrl);
  const pool = createPool(templateUrl, { max: 2 });
  try { await ensureQueue(pool); } finally { await pool.end(); }
  project.provide('pgAdminUrl', adminUrl);
  project.provide('testDataDir', dataDir);
  return async () => {
    await server.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext { pgAdminUrl: string; testDataDir: string }
}
