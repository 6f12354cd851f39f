/** The password rules, pure (the panel shows and checks them as you type; hashPassword enforces them). */
export const MIN_PASSWORD_LENGTH = 8;
/** bcrypt ignores bytes past 72: longer passwords are refused rather than silently truncated. */
export const MAX_PASSWORD_BYTES = 72;

export interface PasswordRule { id: 'min' | 'max'; text: string; ok: boolean }

/** Each rule with whether `password` meets it. */
export function checkPassword(password: string): PasswordRule[] {
  return [
    { id: 'min', text: `at least ${MIN_PASSWORD_LENGTH} characters`, ok: password.length >= MIN_PASSWORD_LENGTH },
    { id: 'max', text: `at most ${MAX_PASSWORD_BYTES} bytes (UTF-8)`, ok: new TextEncoder().encode(password).length <= MAX_PASSWORD_BYTES },
  ];
}
