import type { BranchHandle } from './run-types';
import { AppError } from '../errors';

export class EtlUsageError extends AppError {
  constructor(message: string) { super('usage', message, { field: 'branch' }); this.name = 'EtlUsageError'; }
}

/** Pick branches by key, in the order asked; none asked means all. An unknown key is a usage error naming `--branch`. */
export function selectBranches(all: BranchHandle[], wanted: string[]): BranchHandle[] {
  if (!wanted.length) return all;
  return wanted.map((w) => {
    const b = all.find((x) => x.key === w.trim());
    if (!b) throw new EtlUsageError(`--branch: unknown branch ${w} (known: ${all.map((x) => x.key).join(', ') || 'none'})`);
    return b;
  });
}
