import bcrypt from 'bcryptjs';
import { AppError } from '../errors';
import { MAX_PASSWORD_BYTES, MIN_PASSWORD_LENGTH } from './password-rules';

export { MIN_PASSWORD_LENGTH };

/** bcrypt cost factor. (Default: 10 — about 100 ms per hash in pure JS) */
const COST = 10;

export async function hashPassword(password: string): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('validation', `auth: password must have at least ${MIN_PASSWORD_LENGTH} characters`, { field: 'password' });
  }
  // bcrypt ignores bytes past 72: refuse instead of silently truncating.
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw new AppError('validation', `auth: password must be at most ${MAX_PASSWORD_BYTES} bytes`, { field: 'password' });
  }
  return bcrypt.hash(password, COST);
}

/**
 * A bcrypt hash of a password nobody has, at the same cost: an unknown user
 * name is compared against it, so a miss takes as long as a wrong password and
 * timing does not tell which names exist.
 */
export const DUMMY_HASH = '$2b$10$2DYuKTzc9TRrdRxt0QcoKeT0Kq.0Lozsux0MSenkFSMFMhSCvb8hi';

/** Spend a real compare and answer false (for unknown users). */
export async function dummyCompare(password: string): Promise<false> {
  await verifyPassword(password, DUMMY_HASH);
  return false;
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  try { return await bcrypt.compare(password, hash); } catch { return false; }
}
