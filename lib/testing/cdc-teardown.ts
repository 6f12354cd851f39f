import fs from 'node:fs/promises';
import type { LogicalPostgres } from './logical-pg';
import type { TestDatabase } from './pg';

/**
 * The teardown every CDC test shares: the source client before its server (a client left open
 * would see the server stop under it), then the file's test database and its data folder. Each
 * part may be missing — a `beforeAll` that failed half-way still leaves nothing behind.
 */
export async function closeCdcTest(o: { src?: { end(): Promise<unknown> }; server?: LogicalPostgres; db?: TestDatabase; dir?: string }): Promise<void> {
  await o.src?.end();
  await o.server?.stop();
  await o.db?.drop();
  if (o.dir) await fs.rm(o.dir, { recursive: true, force: true });
}
