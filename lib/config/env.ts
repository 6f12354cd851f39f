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
  /** Iceberg warehouse root, `file:///abs/path` or `s3://bucket/prefix`. (Default: `file://<data>/warehouse`) */
  TRIBUTARY_WAREHOUSE: z.string().regex(/^(file:\/\/\/|s3a?:\/\/[^/]+|\/)/, 'TRIBUTARY_WAREHOUSE: file:///abs/path, /abs/path or s3://bucket/prefix').optional(),
  /** Access key of an s3:// warehouse. (Default: unset — the AWS SDK's default credential chain) */
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  /** Secret key of an s3:// warehouse. (Default: unset) */
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Region of an s3:// warehouse's bucket. (Default: us-east-1) */
  AWS_REGION: z.string().min(1).optional(),
  /** Endpoint of an S3-compatible store (MinIO, Ceph, R2), e.g. `http://minio:9000`. (Default: AWS's endpoint for the region) */
  TRIBUTARY_S3_ENDPOINT: z.string().regex(/^https?:\/\/[^/\s]+/, 'TRIBUTARY_S3_ENDPOINT: an http:// or https:// URL').optional(),
  /** Path-style addressing (`endpoint/bucket/key`) for S3-compatible stores. (Default: false) */
  TRIBUTARY_S3_FORCE_PATH_STYLE: z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1').optional(),
  /** Log level: debug, info, warn, error. (Default: info) */
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});

/** Object-store settings of an s3:// warehouse, handed to the lake as they are (the lake's `S3Settings`). */
export interface EnvS3 { region?: string; accessKeyId?: string; secretAccessKey?: string; endpoint?: string; forcePathStyle: boolean }

export type Env = z.infer<typeof EnvSchema> & { dataDir: string; warehouse: string; s3: EnvS3 };

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
  const s3: EnvS3 = {
    region: r.data.AWS_REGION, accessKeyId: r.data.AWS_ACCESS_KEY_ID, secretAccessKey: r.data.AWS_SECRET_ACCESS_KEY,
    endpoint: r.data.TRIBUTARY_S3_ENDPOINT, forcePathStyle: r.data.TRIBUTARY_S3_FORCE_PATH_STYLE ?? false,
  };
  return { ...r.data, dataDir, warehouse, s3 };
}
