// POST /api/v1/connections/import - create or update branch connections from TOML { toml } in the [oracle_branches.<key>] format; stored secrets the file omits are kept; all or nothing (admin)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { checkConnectionFields } from '@/lib/api/presenters/connection-kinds';
import { connectionsContext } from '@/lib/api/presenters/connections';
import { connectionsFromToml, importConnections } from '@/lib/connections';
import { AppError } from '@/lib/errors';

const Body = z.strictObject({
  /** The TOML text. `${VAR}` is not expanded here (the server's environment is not the caller's): use the CLI's `connections import` for that. */
  toml: z.string().min(1, 'paste the TOML text').max(256 * 1024),
  /** Check and report, write nothing. (Default: false) */
  dryRun: z.boolean().default(false),
});

const Response = z.object({
  dryRun: z.boolean(),
  connections: z.array(z.object({ name: z.string(), branchKey: z.string(), kind: z.string(), action: z.enum(['created', 'updated', 'checked']) })),
});

export const POST = apiHandler({ role: 'admin', body: Body, maxBodyBytes: 300 * 1024, response: Response }, async ({ req, deps, body, principal }) => {
  // No environment: a ${VAR} is refused rather than filled from the web process's secrets.
  const inputs = connectionsFromToml(body.toml, null, 'toml');
  if (!inputs.length) throw new AppError('validation', 'toml: no [oracle_branches.<key>] or [postgres_branches.<key>] section found', { field: 'toml' });
  for (const c of inputs) {
    const problem = checkConnectionFields({ kind: c.kind, params: c.params, secrets: c.secrets });
    if (problem) throw new AppError('validation', `toml: [${c.kind}_branches.${c.branchKey}] ${problem.message}`, { field: 'toml' });
  }
  if (body.dryRun) return { dryRun: true, connections: inputs.map((c) => ({ name: c.name, branchKey: c.branchKey!, kind: c.kind, action: 'checked' as const })) };
  return { dryRun: false, connections: await importConnections(connectionsContext(deps), inputs, auditActor(principal, req)) };
});
