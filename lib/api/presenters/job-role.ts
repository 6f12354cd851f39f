import { roleAtLeast, type Role } from '../../auth/roles';
import { AppError } from '../../errors';
import { jobKinds } from '../../jobs';

/** Refuse saving or running a job spec whose kind needs a higher role than the caller's. */
export function assertMayRunKind(role: Role, kind: string): void {
  const def = jobKinds().find((k) => k.kind === kind);
  if (def && !roleAtLeast(role, def.role)) throw new AppError('forbidden', `${kind} needs the ${def.role} role; you are ${role}`);
}
