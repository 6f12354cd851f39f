import type pg from 'pg';
import { AppError } from '../errors';
import { listConnections } from './store';
import type { KeySource } from './secret-box';

/**
 * Each key must name a branch connection, checked when a job is posted; the
 * error names the payload field (`params.branch[1]`).
 */
export async function checkBranchKeys(ctx: { pool: pg.Pool; keys: KeySource }, keys: string[], field = 'params.branch'): Promise<void> {
  if (!keys.length) return;
  const known = (await listConnections(ctx, { branchesOnly: true })).map((c) => c.branchKey ?? c.name);
  keys.forEach((b, i) => {
    if (!known.includes(b)) throw new AppError('validation', `${field}[${i}]: unknown branch ${JSON.stringify(b)} (known: ${known.join(', ') || 'none — add connections marked as branches'})`, { field: `${field}[${i}]` });
  });
}
