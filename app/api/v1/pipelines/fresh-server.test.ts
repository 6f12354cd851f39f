// Issue #27 (1): on a freshly started server the first `POST /api/v1/pipelines`
// with an API token answered 500 "jobs: no job catalog installed", because the
// route's bundle never imported the module that installed the catalog. This
// file is its own module graph (vitest isolates test files), as a fresh server
// is: it loads the pipelines route and the server's edge it imports, nothing
// else. The catalog is now part of the server deps the route is handed.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@/lib/testing/pg';
import { parseEnv } from '@/lib/config/env';
import { createApiToken, createUser } from '@/lib/auth';
import { ensureQueue } from '@/lib/jobs';
import { callRoute } from '../test-call';
import * as pipelines from './route';
import { openServerDeps, shutServerDeps } from '@/app/_server/deps';

let db: TestDatabase;
let dataDir: string;
let token = '';

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-fresh-'));
  await ensureQueue(db.pool);
  // The settings a server parses at start, built here: the test never touches process.env.
  const { prisma } = openServerDeps(parseEnv({ DATABASE_URL: db.url, TRIBUTARY_SECRET: 'fresh-server-secret-0123456789', TRIBUTARY_DATA_DIR: dataDir }));
  await createUser(prisma, { name: 'olga', password: 'olga-password', role: 'operator' });
  token = (await createApiToken(prisma, { user: 'olga', name: 'ci' })).token;
});

afterAll(async () => {
  await shutServerDeps();
  await db.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('the first POST /api/v1/pipelines of a fresh server saves the pipeline (201), not 500 "no job catalog"', async () => {
  const r = await callRoute(pipelines.POST, 'POST', '/api/v1/pipelines', { token, body: { name: 'first', kind: 'system.check', params: {} } });
  expect(r.status, r.text).toBe(201);
  expect(r.body.name).toBe('first');
  const listed = await callRoute(pipelines.GET, 'GET', '/api/v1/pipelines', { token });
  expect(listed.body.pipelines.map((p: { name: string }) => p.name)).toEqual(['first']);
});
