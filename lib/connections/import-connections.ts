import crypto from 'node:crypto';
import { AppError } from '../errors';
import { withTransaction } from '../db/with-transaction';
import { recordAudit, type AuditActor } from '../audit';
import { ConnectionInputSchema, openSecrets, sealSecrets, type ConnectionInput, type ConnectionsContext } from './store';
import { findSecret } from '../log/secret-scan';

export interface ImportOutcome { name: string; branchKey: string; kind: string; action: 'created' | 'updated' }

/**
 * Branch connections from a TOML import, all or nothing (one transaction). A
 * branch that exists (by name or branch key) gets the file's params — the file
 * is the whole non-secret picture — and keeps every stored secret the file does
 * not give; a new one is created. A kind change is refused, naming the branch.
 */
export async function importConnections(ctx: ConnectionsContext, inputs: ConnectionInput[], audit?: AuditActor): Promise<ImportOutcome[]> {
  const parsed = inputs.map((input, i) => {
    const r = ConnectionInputSchema.safeParse(input);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new AppError('validation', `connections: [${input.branchKey ?? input.name}] ${issue.path.join('.') || 'connection'}: ${issue.message}`, { field: `connections[${i}].${issue.path.join('.')}` });
    }
    const s = findSecret(r.data.params, 'params');
    if (s) throw new AppError('validation', `connections: [${r.data.branchKey}] ${s.field}: refused — ${s.reason}; put it in secrets`, { field: `connections[${i}].${s.field}` });
    return r.data;
  });
  return withTransaction(ctx.pool, async (client) => {
    const out: ImportOutcome[] = [];
    for (const c of parsed) {
      const cur = await client.query('SELECT * FROM connections WHERE name = $1 OR branch_key = $2 ORDER BY (name = $1) DESC LIMIT 1 FOR UPDATE', [c.name, c.branchKey]);
      const row = cur.rows[0];
      if (row && row.kind !== c.kind) {
        throw new AppError('conflict', `connections: [${c.branchKey}] exists as a ${row.kind} connection ('${row.name}'); the file makes it ${c.kind}`, { field: 'toml' });
      }
      const secrets = { ...(row ? openSecrets(ctx, row.secrets_enc) : {}), ...c.secrets };
      const sealed = sealSecrets(ctx, secrets);
      const after = { name: row?.name ?? c.name, kind: c.kind, isBranch: true, branchKey: c.branchKey, params: c.params, secretKeys: Object.keys(secrets).sort() };
      if (row) {
        await client.query('UPDATE connections SET is_branch = true, branch_key = $2, params = $3, secrets_enc = $4, updated_at = now() WHERE id = $1',
          [row.id, c.branchKey, JSON.stringify(c.params), sealed]);
      } else {
        await client.query(`INSERT INTO connections (id, name, kind, is_branch, branch_key, params, secrets_enc, created_at, updated_at)
          VALUES ($1, $2, $3, true, $4, $5, $6, now(), now())`, [crypto.randomUUID(), c.name, c.kind, c.branchKey, JSON.stringify(c.params), sealed]);
      }
      if (audit) {
        await recordAudit(client, { ...audit, action: row ? 'connection.update' : 'connection.create', target: `connection:${after.name}`,
          ...(row ? { before: { name: row.name, kind: row.kind, isBranch: row.is_branch, branchKey: row.branch_key, params: row.params } } : {}), after });
      }
      out.push({ name: after.name, branchKey: c.branchKey!, kind: c.kind, action: row ? 'updated' : 'created' });
    }
    return out;
  }).catch((e) => {
    const pe = e as { code?: string };
    if (pe.code === '23505') throw new AppError('conflict', 'connections: two branches of the import collide with existing names or branch keys', { field: 'toml', cause: e });
    throw e;
  });
}
