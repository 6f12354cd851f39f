/**
 * Test-only: a real S3 API server (npm `s3rver`) on a free loopback port with
 * its objects in a unique temp folder, and the lake's settings to reach it.
 *
 * s3rver predates S3's conditional writes (2024): it ignores `If-None-Match`
 * on PUT and on CompleteMultipartUpload. A middleware placed before its router
 * answers those requests as S3 (and MinIO, R2) do — 412 PreconditionFailed
 * when the key exists — so the tests exercise the client's handling of the
 * real protocol. Everything else is s3rver's own behaviour.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { S3Settings } from './storage-s3';

export interface TestS3 {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  /** Settings the lake needs for this server (path style, fixed test credentials). */
  settings: S3Settings;
  /** A fresh `s3://<bucket>/<unique prefix>` warehouse. */
  warehouse(): string;
  /** How many requests of each kind reached the server (`PUT`, `GET range`, `POST`...). */
  requests: Map<string, number>;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'lake'): Promise<TestS3> {
  const { default: S3rver } = await import('s3rver');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, vhostBuckets: false, configureBuckets: [{ name: bucket, configs: [] }] });
  const requests = new Map<string, number>();
  const app = server as unknown as { middleware: ((ctx: KoaCtx, next: () => Promise<void>) => Promise<void>)[] };
  app.middleware.unshift(async (ctx, next) => {
    const kind = `${ctx.method}${ctx.headers.range ? ' range' : ''}${'uploadId' in ctx.query ? ' part' : ''}`;
    requests.set(kind, (requests.get(kind) ?? 0) + 1);
    const conditional = ctx.headers['if-none-match'] === '*' && (ctx.method === 'PUT' || (ctx.method === 'POST' && 'uploadId' in ctx.query));
    if (conditional && !(ctx.method === 'PUT' && 'uploadId' in ctx.query)) {
      const [b, ...rest] = ctx.path.slice(1).split('/');
      const key = decodeURIComponent(rest.join('/'));
      if (await ctx.store.existsObject(b, key)) {
        ctx.status = 412;
        ctx.type = 'application/xml';
        ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>`;
        return;
      }
    }
    await next();
  });
  const addr = await server.run() as { port: number };
  const endpoint = `http://127.0.0.1:${addr.port}`;
  return {
    endpoint,
    bucket,
    settings: { endpoint, forcePathStyle: true, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', maxAttempts: 2 },
    warehouse: () => `s3://${bucket}/wh-${crypto.randomBytes(4).toString('hex')}`,
    requests,
    async stop() {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface KoaCtx {
  method: string; path: string; query: Record<string, unknown>; headers: Record<string, string | undefined>;
  status: number; type: string; body: unknown;
  store: { existsObject(bucket: string, key: string): Promise<boolean> };
}
