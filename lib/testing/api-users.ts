import type { Db } from '../db/prisma';
import { createApiToken, createUser } from '../auth';

export type TestRole = 'admin' | 'operator' | 'viewer';

/** The users API tests act as, one per role (passwords meet the password rules). */
export const TEST_USERS: Record<TestRole, { name: string; password: string }> = {
  admin: { name: 'root', password: 'admin-pwd-1' },
  operator: { name: 'olga', password: 'operator-pw' },
  viewer: { name: 'vic', password: 'viewer-pwd' },
};

/**
 * Create the test user of each role asked for and one API token each, the
 * way an operator would (createUser, createApiToken; each token is named 't',
 * so actors read `token:olga/t`): route tests then call
 * handlers with `authorization: Bearer <token>`.
 * @returns the bearer token per role (roles not asked for: '')
 */
export async function createTestUsers(prisma: Db, roles: TestRole[] = ['admin', 'operator', 'viewer']): Promise<Record<TestRole, string>> {
  const tokens: Record<TestRole, string> = { admin: '', operator: '', viewer: '' };
  for (const role of roles) {
    const u = TEST_USERS[role];
    await createUser(prisma, { name: u.name, password: u.password, role });
    tokens[role] = (await createApiToken(prisma, { user: u.name, name: 't' })).token;
  }
  return tokens;
}
