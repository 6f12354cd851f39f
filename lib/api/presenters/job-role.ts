import { roleAtLeast, type Role } from '../../auth/roles';
import { AppError } from '../../errors';
import { jobCatalog } from '../../jobs';

/** Refuse saving or running a job spec whose kind needs a higher role than the caller's. */
export function assertMayRunKind(role: Role, kind: string): void {
  const { jobs } = jobCatalog();
  if (!jobs.get(kind)) return; // unknown kinds are refused by the spec check, naming the field
  const least = jobs.roleOf(kind);
  if (!roleAtLeast(role, least)) throw new AppError('forbidden', `${kind} needs the ${least} role; you are ${role}`);
}

/**
 * The same for a flow's inline nodes: a flow runs its nodes as the
 * scheduler, so saving one is where the caller's role is checked.
 */
export function assertMayRunFlowNodes(role: Role, body: Record<string, unknown>): void {
  const nodes = Array.isArray(body.nodes) ? body.nodes : [];
  for (const n of nodes) if (n && typeof n === 'object' && typeof (n as { kind?: unknown }).kind === 'string') assertMayRunKind(role, (n as { kind: string }).kind);
}
