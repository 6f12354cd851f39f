import { z } from 'zod';

/** Panel and API roles, least to most powerful: viewers read, operators run, admins also change connections, users and settings. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const RoleSchema = z.enum(ROLES);

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

/** Whether `role` may do what `least` may do. */
export function roleAtLeast(role: Role, least: Role): boolean {
  return RANK[role] >= RANK[least];
}

/** The weaker of two roles (a token never grants more than its user currently has). */
export function minRole(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}

/** The stronger of two roles (a flow needs the highest role of its nodes). */
export function maxRole(a: Role, b: Role): Role {
  return RANK[a] >= RANK[b] ? a : b;
}
