// The OpenAPI document describes exactly the routes that exist, from the same
// zod schemas they validate with; unknown /api/v1 paths answer the JSON error.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApi, jsonSchemaOf } from '@/lib/api/openapi';
import { DEFAULT_MAX_BODY_BYTES } from '@/lib/api';
import { apiRoutes } from '@/app/_server/api-routes';
import { jobs } from '@/app/_server/jobs';
import * as openapi from './openapi.json/route';
import * as rest from './[...rest]/route';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const ctx = { params: Promise.resolve({}) };

describe('OpenAPI', () => {
  it('the route table is current: every route file and method is in it, with its header comment as summary', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/gen-api-routes.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('documents every route and method of the table, and nothing else', async () => {
    const res = await openapi.GET(new Request('http://x/api/v1/openapi.json'), ctx);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(apiRoutes.map((r) => r.path).sort());
    for (const r of apiRoutes) {
      const ops = Object.keys(doc.paths[r.path]).map((m) => m.toUpperCase()).sort();
      expect(ops, r.path).toEqual(Object.keys(r.methods).sort());
      for (const m of ops) {
        const op = doc.paths[r.path][m.toLowerCase()];
        expect(op.summary, `${m} ${r.path}`).not.toBe(`${m} ${r.path}`);
        const spec = r.methods[m as keyof typeof r.methods]!.spec;
        expect(op['x-required-role']).toBe(spec.role ?? 'viewer');
        if (spec.body) expect(op['x-max-body-bytes']).toBe(spec.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        for (const p of (r.path.match(/\{(\w+)\}/g) ?? [])) {
          expect(op.parameters.map((x: { name: string; in: string }) => `${x.in}:${x.name}`), `${m} ${r.path}`).toContain(`path:${p.slice(1, -1)}`);
        }
      }
    }
  });

  it('describes every job kind with the payload schema POST /jobs validates against', () => {
    const doc = buildOpenApi({ routes: apiRoutes, jobs, version: 'test' }) as { components: { schemas: Record<string, unknown> }; paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: { oneOf: { properties: { kind: { const: string } } }[] } }> } }>> };
    for (const k of jobs.kinds()) expect(doc.components.schemas[`JobPayload.${k.kind}`]).toEqual({ ...jsonSchemaOf(jobs.get(k.kind)!.payload), description: k.description });
    const oneOf = doc.paths['/api/v1/jobs'].post.requestBody.content['application/json'].schema.oneOf;
    expect(oneOf.map((o) => o.properties.kind.const).sort()).toEqual(jobs.kinds().map((k) => k.kind).sort());
  });

  it('turns a query schema into query parameters with their requiredness', () => {
    const doc = buildOpenApi({
      routes: [{ path: '/api/v1/x/{id}', methods: { GET: { spec: { params: z.object({ id: z.string() }), query: z.object({ a: z.string(), b: z.coerce.number().optional() }) } } } }],
      jobs, version: 't',
    }) as { paths: Record<string, { get: { parameters: { name: string; in: string; required: boolean }[] } }> };
    expect(doc.paths['/api/v1/x/{id}'].get.parameters.map(({ name, in: w, required }) => ({ name, in: w, required }))).toEqual([
      { name: 'id', in: 'path', required: true }, { name: 'a', in: 'query', required: true }, { name: 'b', in: 'query', required: false },
    ]);
  });

  it('an unknown /api/v1 route answers the JSON error shape with 404', async () => {
    for (const h of [rest.GET, rest.POST, rest.DELETE]) {
      const res = await h(new Request('http://x/api/v1/no/such/thing', { method: 'GET' }));
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect((await res.json()).error).toMatchObject({ code: 'not_found', message: expect.stringContaining('/api/v1/no/such/thing') });
    }
  });
});
