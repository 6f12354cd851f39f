import type pg from 'pg';
import { AppError } from '../errors';
import { listConnections } from './store';
import type { KeySource } from './secret-box';

/**
 * Each key must name a branch connection, checked when a job is posted; the
 * error names the payload field (`params.branch[1]` for a list, `params.branch` for one key).
 */
export async function checkBranchKeys(ctx: { pool: pg.Pool; keys: KeySource }, keys: string[] | string, field = 'params.branch'): Promise<void> {
  const list = typeof keys === 'string' ? [keys] : keys;
  if (!list.length) return;
  const known = (await listConnections(ctx, { branchesOnly: true })).map((c) => c.branchKey ?? c.name);
  list.forEach((b, i) => {
    const at = typeof keys === 'string' ? field : `${field}[${i}]`;
    if (!known.includes(b)) throw new AppError('validation', `${at}: unknown branch ${JSON.stringify(b)} (known: ${known.join(', ') || 'none — add connections marked as branches'})`, { field: at });
  });
}
