// Issue #27 (1): on a freshly started server the first `POST /api/v1/pipelines`
// with an API token answered 500 "jobs: no job catalog installed", because the
// route's bundle never imported the module that installed the catalog. This
// file is its own module graph (vitest isolates test files), as a fresh server
// is: it loads the pipelines route and the server's edge it imports, nothing
// else. The catalog is now part of the server deps the route is handed.
// The shared route-test helper fits: it imports the server's edge
// (app/_server/deps.ts) and no route or other app module.
import { expect, it } from 'vitest';
import { callRoute } from '../test-call';
import * as pipelines from './route';
import { useRouteServer } from '../test-server';

const fx = useRouteServer({ name: 'fresh-server', queue: true, roles: ['operator'] });

it('the first POST /api/v1/pipelines of a fresh server saves the pipeline (201), not 500 "no job catalog"', async () => {
  const r = await callRoute(pipelines.POST, 'POST', '/api/v1/pipelines', { token: fx.tok.operator, body: { name: 'first', kind: 'system.check', params: {} } });
  expect(r.status, r.text).toBe(201);
  expect(r.body.name).toBe('first');
  const listed = await callRoute(pipelines.GET, 'GET', '/api/v1/pipelines', { token: fx.tok.operator });
  expect(listed.body.pipelines.map((p: { name: string }) => p.name)).toEqual(['first']);
});
