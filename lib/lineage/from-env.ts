import type { Env } from '../config/env';
import { AppError } from '../errors';
import type { Logger } from '../log';
import { createLineageEmitter } from './emitter';
import { fileTransport, httpTransport } from './transport';
import type { LineageEmitter } from './types';

type LineageEnv = Pick<Env, 'OPENLINEAGE_URL' | 'OPENLINEAGE_ENDPOINT' | 'OPENLINEAGE_API_KEY' | 'OPENLINEAGE_NAMESPACE' | 'OPENLINEAGE_DISABLED' | 'OPENLINEAGE__TRANSPORT__TYPE' | 'OPENLINEAGE__TRANSPORT__LOG_FILE_PATH'>;

/**
 * The emitter the environment configures, as the OpenLineage clients read it:
 * `OPENLINEAGE__TRANSPORT__TYPE=file` + `…__LOG_FILE_PATH`, else `OPENLINEAGE_URL`
 * (+ `OPENLINEAGE_ENDPOINT`, `OPENLINEAGE_API_KEY`); null when neither is set or
 * `OPENLINEAGE_DISABLED=true`.
 */
export function lineageFromEnv(env: LineageEnv, logger: Logger): LineageEmitter | null {
  if (env.OPENLINEAGE_DISABLED) return null;
  const namespace = env.OPENLINEAGE_NAMESPACE;
  if (env.OPENLINEAGE__TRANSPORT__TYPE === 'file') {
    if (!env.OPENLINEAGE__TRANSPORT__LOG_FILE_PATH) throw new AppError('usage', 'config: OPENLINEAGE__TRANSPORT__LOG_FILE_PATH: required when OPENLINEAGE__TRANSPORT__TYPE=file');
    return createLineageEmitter({ transport: fileTransport(env.OPENLINEAGE__TRANSPORT__LOG_FILE_PATH), namespace, logger });
  }
  if (!env.OPENLINEAGE_URL) return null;
  return createLineageEmitter({ transport: httpTransport({ url: env.OPENLINEAGE_URL, endpoint: env.OPENLINEAGE_ENDPOINT, apiKey: env.OPENLINEAGE_API_KEY }), namespace, logger });
}
