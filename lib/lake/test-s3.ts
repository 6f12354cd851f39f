/**
 * Test-only: a real S3 API server (npm `s3rver`) on a free loopback port with
 * its objects in a unique temp folder, and the lake's settings to reach it.
 *
 * It runs in a child process (test-s3-server.mjs), not in the test's: chdb's
 * queries are synchronous and would block an in-process server they read from.
 * s3rver predates S3's conditional writes (2024) and ignores `If-None-Match`
 * on PUT and CompleteMultipartUpload; the child answers those as S3, MinIO and
 * R2 do — 412 PreconditionFailed when the key exists — so the tests exercise
 * the client's handling of the real protocol.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { S3Settings } from './storage-s3';

export interface TestS3 {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  /** Settings the lake needs for this server (path style, s3rver's fixed test credentials). */
  settings: S3Settings;
  /** A fresh `s3://<bucket>/<unique prefix>` warehouse. */
  warehouse(): string;
  /** How many requests of each kind reached the server so far (`PUT`, `GET range`, `PUT part`...). */
  requests(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'lake'): Promise<TestS3> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-s3rver-'));
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'test-s3-server.mjs'), dir, bucket], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += d;
      const line = buf.split('\n')[0];
      if (buf.includes('\n')) resolve(JSON.parse(line).port);
    });
    child.once('exit', (code) => reject(new Error(`test-s3: s3rver exited with ${code}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    settings: { endpoint, forcePathStyle: true, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', maxAttempts: 2 },
    warehouse: () => `s3://${bucket}/wh-${crypto.randomBytes(4).toString('hex')}`,
    requests: async () => (await fetch(`${endpoint}/__requests`)).json() as Promise<Record<string, number>>,
    async stop() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Route icebird's reads to this server: it turns `s3://bucket/key` into
 * `https://bucket.s3.amazonaws.com/key`, which this fetch (installed for the rest of the
 * test file) sends to `s3.endpoint` path-style; every other request goes on as before.
 */
export function routeAwsFetchTo(s3: TestS3): void {
  const prev = globalThis.fetch;
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const m = /^https:\/\/([^/.]+)\.s3\.amazonaws\.com\/(.*)$/.exec(url);
    return prev(m ? `${s3.endpoint}/${m[1]}/${m[2]}` : input, init);
  }) as typeof fetch;
}
