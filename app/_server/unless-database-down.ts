import { isDatabaseUnavailable } from '@/lib/errors/db-unavailable';

/** Marks a page request made while the database could not be reached. */
export const DATABASE_DOWN = Symbol('database-down');

/**
 * Run a page's first database read; `DATABASE_DOWN` instead of an error when
 * the database cannot be reached, so the page renders its "database
 * unavailable" state rather than a 500. Other errors are thrown as they were.
 */
export async function unlessDatabaseDown<T>(fn: () => Promise<T>): Promise<T | typeof DATABASE_DOWN> {
  try {
    return await fn();
  } catch (e) {
    if (isDatabaseUnavailable(e)) return DATABASE_DOWN;
    throw e;
  }
}
