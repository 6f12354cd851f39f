'use client';
import { checkPassword } from '@/lib/auth/password-rules';

/** The password rules beside a password field, each ticked as the typed password meets it. */
export function PasswordRules({ password, id, extra = [] }: { password: string; id: string; extra?: { text: string; ok: boolean }[] }) {
  const rules = [...checkPassword(password), ...extra];
  return (
    <ul className="password-rules" id={id} aria-live="polite" data-testid="password-rules">
      {rules.map((r) => (
        <li key={r.text} className={password === '' ? 'rule' : r.ok ? 'rule rule-ok' : 'rule rule-bad'}>
          <span aria-hidden="true">{password === '' ? '•' : r.ok ? '✓' : '✗'}</span> {r.text}
          {password !== '' && <span className="sr-only">{r.ok ? ' (met)' : ' (not met)'}</span>}
        </li>
      ))}
    </ul>
  );
}

/** Whether every rule holds (the submit button waits for it). */
export function passwordOk(password: string): boolean {
  return checkPassword(password).every((r) => r.ok);
}
