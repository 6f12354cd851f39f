import bcrypt from 'bcryptjs';
import { AppError } from '../errors';

/** bcrypt cost factor. (Default: 10 — about 100 ms per hash in pure JS) */
const COST = 10;
export const MIN_PASSWORD_LENGTH = 8;

export async function hashPassword(password: string): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('validation', `auth: password must have at least ${MIN_PASSWORD_LENGTH} characters`, { field: 'password' });
  }
  // bcrypt ignores bytes past 72: refuse instead of silently truncating.
  if (Buffer.byteLength(password, 'utf8') > 72) {
    throw new AppError('validation', 'auth: password must be at most 72 bytes', { field: 'password' });
  }
  return bcrypt.hash(password, COST);
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  try { return await bcrypt.compare(password, hash); } catch { return false; }
}
