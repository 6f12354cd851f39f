import path from 'node:path';
import { z } from 'zod';

/**
 * The process environment, parsed once at start-up. Engines never read
 * `process.env`; they receive the plain values from their caller.
 */
const EnvSchema = z.object({
  /** Postgres to use. (Default: unset — an embedded PostgreSQL under the data folder) */
  DATABASE_URL: z.string().url().optional(),
  /** Folder for the embedded database, the warehouse, secrets and run files. (Default: `./.data`) */
  TRIBUTARY_DATA_DIR: z.string().min(1).default('.data'),
  /** Port the panel serves on. (Default: 8765) */
  PORT: z.coerce.number().int().min(1).max(65535).default(8765),
  /** Interface the panel binds to. (Default: 127.0.0.1) */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** First admin's user name, created at start when no such user exists. (Default: unset) */
  TRIBUTARY_ADMIN_USER: z.string().min(1).optional(),
  /** First admin's password. (Default: unset) */
  TRIBUTARY_ADMIN_PASSWORD: z.string().min(8, 'TRIBUTARY_ADMIN_PASSWORD: at least 8 characters').optional(),
  /** Secret for session signing and for encrypting connection secrets at rest. (Default: generated once into `<data>/secret.key`) */
  TRIBUTARY_SECRET: z.string().min(16).optional(),
  /** Jobs one worker runs at once. (Default: 2) */
  TRIBUTARY_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** A running job whose worker has not heartbeated for this long is failed. (Default: 30) */
  TRIBUTARY_JOB_STALE_SECONDS: z.coerce.number().int().min(3).max(86_400).default(30),
  /** Iceberg warehouse root, `file://…` (s3:// later). (Default: `file://<data>/warehouse`) */
  TRIBUTARY_WAREHOUSE: z.string().optional(),
  /** (Default: http://HOST:PORT) — base URL used in alert mail links and for origin checks */
  TRIBUTARY_PUBLIC_URL: z.string().url().optional(),
  /** Log level: debug, info, warn, error. (Default: info) */
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});

export type Env = z.infer<typeof EnvSchema> & { dataDir: string; warehouse: string };

/** Parse the environment; a bad value fails with the variable's name. */
export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ''));
  const r = EnvSchema.safeParse(cleaned);
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`config: invalid environment — ${msg}`);
  }
  const dataDir = path.resolve(r.data.TRIBUTARY_DATA_DIR);
  const warehouse = r.data.TRIBUTARY_WAREHOUSE ?? `file://${path.join(dataDir, 'warehouse')}`;
  return { ...r.data, dataDir, warehouse };
}
