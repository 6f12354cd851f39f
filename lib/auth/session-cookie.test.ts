// The session cookie's name follows the settings the server parsed once
// (NEXTAUTH_URL https → `__Secure-…`), handed in: reading a session no longer
// parses the environment on every request.
import { describe, expect, it } from 'vitest';
import { encode } from 'next-auth/jwt';
import { parseEnv } from '../config/env';
import { readSession, usesSecureCookies } from './session';

describe('session cookie name', () => {
  it('is __Secure-… exactly when the settings say the panel is served over https', async () => {
    const secure = usesSecureCookies(parseEnv({ NEXTAUTH_URL: 'https://panel.example.com' }));
    const plain = usesSecureCookies(parseEnv({ NEXTAUTH_URL: 'http://127.0.0.1:8765' }));
    expect([secure, plain, usesSecureCookies(parseEnv({}))]).toEqual([true, false, false]);
    const secret = 'a-test-secret-of-enough-length';
    const token = await encode({ token: { sub: 'u1', name: 'alice', role: 'admin' }, secret });
    const who = { id: 'u1', name: 'alice', role: 'admin', sessionVersion: 0 };
    expect(await readSession(`__Secure-next-auth.session-token=${token}`, secret, secure)).toEqual(who);
    expect(await readSession(`next-auth.session-token=${token}`, secret, secure)).toBeNull();
    expect(await readSession(`next-auth.session-token=${token}`, secret, plain)).toEqual(who);
    expect(await readSession(`__Secure-next-auth.session-token=${token}`, secret, plain)).toBeNull();
  });
});
