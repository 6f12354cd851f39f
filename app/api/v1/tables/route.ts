// GET /api/v1/tables - tables.json as the Tables page edits it: entries as written, their lake tables, its version
// PUT /api/v1/tables - replace tables.json { entries, version } (admin): validated naming the field, written atomically, audited
import path from 'node:path';
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { recordAudit } from '@/lib/audit';
import { readTablesFile, saveTablesFile } from '@/lib/config/tables-file';

const Body = z.strictObject({
  /** Every entry of the file, in order (the file is the source of truth; the CLI reads the same one). */
  entries: z.array(z.unknown()).max(5000),
  /** The version GET answered: a save over a file changed since is a 409. */
  version: z.string().max(64),
});

const fileOf = (env: { TRIBUTARY_TABLES_FILE: string }) => path.resolve(env.TRIBUTARY_TABLES_FILE);

export const GET = apiHandler({}, async ({ deps }) => {
  const v = await readTablesFile(fileOf(deps.env));
  return { ...v, file: deps.env.TRIBUTARY_TABLES_FILE };
});

// Admin: an entry may be a subquery that every branch runs with its credentials.
export const PUT = apiHandler({ role: 'admin', body: Body, maxBodyBytes: 2 * 1024 * 1024 }, async ({ req, deps, body, principal }) => {
  const before = await readTablesFile(fileOf(deps.env));
  const saved = await saveTablesFile(fileOf(deps.env), body.entries, body.version);
  const a = auditActor(principal, req);
  await recordAudit(deps.pool, {
    actor: a.actor, address: a.address, action: 'tables.update', target: `tables:${deps.env.TRIBUTARY_TABLES_FILE}`,
    before: { tables: before.tables.map((t) => t.lakeName) }, after: { tables: saved.tables.map((t) => t.lakeName) },
  });
  return { ...saved, file: deps.env.TRIBUTARY_TABLES_FILE };
});
