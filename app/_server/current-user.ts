import { cookies } from 'next/headers';
import { sessionUser, countUsers, type UserInfo } from '@/lib/auth';
import { serverDeps } from './deps';

/** The signed-in user of a page request (role fresh from the database), or null. */
export async function currentUser(): Promise<UserInfo | null> {
  const jar = await cookies();
  const header = jar.getAll().map((c) => `${c.name}=${encodeURIComponent(c.value)}`).join('; ');
  const deps = serverDeps();
  return sessionUser(deps.prisma, header, deps.secret, deps.secureCookies);
}

/** Whether the first-run page is still needed (no user at all). */
export async function needsSetup(): Promise<boolean> {
  return (await countUsers(serverDeps().prisma)) === 0;
}
