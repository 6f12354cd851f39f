import { resolveSecret } from '../config/secret';
import type { Env } from '../config/env';

/**
 * The secret that signs sessions: the installation secret of
 * `lib/config/secret.ts` (the one loader every process shares).
 */
export function loadSecret(env: Pick<Env, 'TRIBUTARY_SECRET' | 'dataDir'>): string {
  return resolveSecret(env);
}
