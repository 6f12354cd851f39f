// The /api/v1/models routes called with Request objects against a real migrated
// Postgres, a lake written by the lake library and a project folder on disk:
// roles (viewers read, operators edit), 400s naming the field, the starter
// project on first use, compile previews of unsaved buffers, the query job.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeModelsWarehouse, makeShopLake } from '@/lib/models/test-project';
import * as project from './route';
import * as files from './files/route';
import * as compile from './compile/route';
import * as query from './query/route';
import * as results from './results/route';
import { callRoute } from '../test-call';
import { useRouteServer } from '../test-server';

const fx = useRouteServer({
  name: 'models-api',
  dataDir: makeModelsWarehouse,
  env: (dir) => ({ TRIBUTARY_WAREHOUSE: `file://${dir}` }),
  roles: ['operator', 'viewer'],
  prepare: async ({ db, dataDir }) => { await makeShopLake(fx.db.pool, `file://${dataDir}`); },
});
const tok = fx.tok;

const call = callRoute;

describe('/api/v1/models', () => {
  it('needs credentials; first use writes the starter project over a lake table', async () => {
    expect((await call(project.GET, 'GET', '/api/v1/models')).status).toBe(401);
    const r = await call(project.GET, 'GET', '/api/v1/models', { token: tok.viewer });
    expect(r.status).toBe(200);
    expect(r.body.root).toBe(path.join(fx.dataDir, 'models'));
    expect(r.body.models).toEqual([expect.objectContaining({ name: 'stg_customers', materialized: 'view', sources: ['shop.customers'], last: null })]);
    expect(r.body.tests.map((t: { name: string }) => t.name)).toEqual(['not_null_stg_customers_BRANCH_ID']);
    expect(r.body.files.map((f: { path: string; kind: string }) => `${f.kind}:${f.path}`)).toContain('schema:models/staging/schema.yml');
    expect(r.body.errors).toEqual([]);
  });

  it('seeds are project files; settings the project has but Tributary does not apply are listed as warnings', async () => {
    const put = (p: string, content: string) => call(files.PUT, 'PUT', '/api/v1/models/files', { token: tok.operator, body: { path: p, content } });
    expect((await put('seeds/codes.csv', 'code,label\nA,alpha\n')).status).toBe(200);
    const yml = fs.readFileSync(path.join(fx.dataDir, 'models', 'dbt_project.yml'), 'utf8');
    expect((await put('dbt_project.yml', `${yml.trimEnd()}\nmodels:\n  +colour: blue\n`)).status).toBe(200);
    const r = await call(project.GET, 'GET', '/api/v1/models', { token: tok.viewer });
    expect(r.body.seeds).toEqual([{ name: 'codes', path: 'seeds/codes.csv', tags: [], last: null }]);
    expect(r.body.files).toContainEqual({ path: 'seeds/codes.csv', kind: 'seed' });
    expect(r.body.warnings).toEqual([{ path: 'dbt_project.yml', message: expect.stringMatching(/^models: dbt_project\.yml: models: unknown config key \+colour/) }]);
    await put('dbt_project.yml', yml);
    expect((await call(files.DELETE, 'DELETE', '/api/v1/models/files?path=seeds/codes.csv', { token: tok.operator })).status).toBe(200);
  });

  it('viewers read files but cannot write them; operators write; bad paths are 400 naming path', async () => {
    const g = await call(files.GET, 'GET', '/api/v1/models/files?path=models/staging/stg_customers.sql', { token: tok.viewer });
    expect(g.status).toBe(200);
    expect(g.body.content).toContain("source('lake', 'shop.customers')");
    const body = { path: 'models/marts/by_branch.sql', content: "{{ config(materialized='table') }}\nSELECT BRANCH_ID, count() AS n FROM {{ ref('stg_customers') }} GROUP BY BRANCH_ID\n" };
    expect((await call(files.PUT, 'PUT', '/api/v1/models/files', { token: tok.viewer, body })).status).toBe(403);
    expect(fs.existsSync(path.join(fx.dataDir, 'models', body.path))).toBe(false);
    const w = await call(files.PUT, 'PUT', '/api/v1/models/files', { token: tok.operator, body });
    expect(w).toMatchObject({ status: 200, body: { saved: true, errors: [] } });
    expect(fs.readFileSync(path.join(fx.dataDir, 'models', body.path), 'utf8')).toBe(body.content);
    for (const p of ['../../etc/passwd', '/etc/passwd', 'models/x.exe']) {
      const bad = await call(files.PUT, 'PUT', '/api/v1/models/files', { token: tok.operator, body: { path: p, content: 'x' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.field).toBe('path');
    }
    const broken = await call(files.PUT, 'PUT', '/api/v1/models/files', { token: tok.operator, body: { path: 'models/broken.sql', content: "SELECT * FROM {{ ref('nope') }}" } });
    expect(broken.body.errors).toEqual([{ path: 'models/broken.sql', message: 'models: broken refs nope, which is no model or seed' }]);
    expect((await call(files.DELETE, 'DELETE', '/api/v1/models/files?path=models/broken.sql', { token: tok.viewer })).status).toBe(403);
    expect((await call(files.DELETE, 'DELETE', '/api/v1/models/files?path=models/broken.sql', { token: tok.operator })).status).toBe(200);
    expect((await call(files.GET, 'GET', '/api/v1/models/files?path=models/broken.sql', { token: tok.viewer })).status).toBe(404);
  });

  it('compile previews unsaved buffers without writing them; only operators compile', async () => {
    const body = { select: ['by_branch'], files: { 'models/marts/by_branch.sql': "SELECT {{ var('k', 7) }} AS k FROM {{ ref('stg_customers') }}" } };
    const denied = await call(compile.POST, 'POST', '/api/v1/models/compile', { token: tok.viewer, body });
    expect(denied.status).toBe(403);
    const r = await call(compile.POST, 'POST', '/api/v1/models/compile', { token: tok.operator, body });
    expect(r.status).toBe(200);
    expect(r.body.nodes).toEqual([{ name: 'by_branch', kind: 'model', path: 'models/marts/by_branch.sql', sql: 'SELECT 7 AS k FROM `models`.`stg_customers`' }]);
    expect(fs.readFileSync(path.join(fx.dataDir, 'models/models/marts/by_branch.sql'), 'utf8')).toContain('count() AS n');
    const src = await call(compile.POST, 'POST', '/api/v1/models/compile', { token: tok.operator, body: { select: ['stg_customers'] } });
    expect(src.body.nodes[0].sql).toMatch(/FROM icebergLocal\('.*shop\/customers'\)/);
    const bad = await call(compile.POST, 'POST', '/api/v1/models/compile', { token: tok.operator, body: { select: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('select');
  });

  it("an operator's compile of a sandbox escape is a 400 or inert text, never the host", async () => {
    // A canary in the host's environment (not a setting): the sandbox must not reach it.
    process.env.TRIBUTARY_ESCAPE_CANARY = 'canary-7f3a9';
    try {
      for (const t of [
        `{% set __proto__ = range %}{% set F = constructor %}{{ F('return process.getBuiltinModule("child_process").execSync("id").toString()')() }}`,
        "{{ range.constructor('return process.env.TRIBUTARY_SECRET')() }}",
        "{{ ref['constructor']['constructor']('return process.env')() }}",
        '{% set ns = namespace() %}{% set ns.__proto__ = range %}{{ ns.constructor }}',
        '{{ cycler("a").next.constructor }}{{ joiner().constructor }}',
        '{{ ref ~ "" }}{{ range }}',
        '{% macro r() %}{{ r() }}{% endmacro %}{{ r() }}',
        '{% for i in range(1000000000) %}x{% endfor %}',
        "{% include '/etc/passwd' %}",
      ]) {
        const r = await call(compile.POST, 'POST', '/api/v1/models/compile', { token: tok.operator, body: { select: ['zz'], files: { 'models/zz.sql': t } } });
        const text = JSON.stringify(r.body);
        expect(text).not.toMatch(/uid=\d|root:x:0|models-api-test-secret|canary-7f3a9|\[native code\]|=>/);
        if (r.status === 200) expect(r.body.nodes[0].sql ?? r.body.nodes[0].error).toMatch(/^([\w<> ]*|models: .*)$/);
        else expect(r.status).toBe(400);
      }
    } finally { delete process.env.TRIBUTARY_ESCAPE_CANARY; }
    expect(fs.existsSync(path.join(fx.dataDir, 'models/models/zz.sql'))).toBe(false);
  });

  it('query: a viewer queues a SELECT as a job (?wait=0: answered at once; refusals and results: query-api.test.ts)', async () => {
    const q = await call(query.POST, 'POST', '/api/v1/models/query?wait=0', { token: tok.viewer, body: { sql: 'SELECT * FROM models.stg_customers' } });
    expect(q.status).toBe(202);
    const run = await fx.db.pool.query('SELECT kind, params FROM job_runs WHERE id = $1', [q.body.id]);
    expect(run.rows[0]).toEqual({ kind: 'models.query', params: { sql: 'SELECT * FROM models.stg_customers' } });
    const bad = await call(query.POST, 'POST', '/api/v1/models/query?wait=0', { token: tok.viewer, body: { sql: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('sql');
  });

  it('results lists stored outcomes', async () => {
    await fx.db.pool.query(`INSERT INTO model_results (run_id, command, node, kind, status, rows, duration_ms) VALUES ('r1', 'build', 'stg_customers', 'model', 'success', NULL, 12)`);
    const r = await call(results.GET, 'GET', '/api/v1/models/results?runId=r1', { token: tok.viewer });
    expect(r.body.results).toEqual([expect.objectContaining({ runId: 'r1', name: 'stg_customers', status: 'success', durationMs: 12 })]);
    const p = await call(project.GET, 'GET', '/api/v1/models', { token: tok.viewer });
    expect(p.body.models.find((m: { name: string }) => m.name === 'stg_customers').last).toMatchObject({ status: 'success', runId: 'r1' });
  });

  it('docs blocks and doc() in schema.yml descriptions reach the page; an unknown doc() is an error naming it; results under a test\'s old name still show', async () => {
    const put = (p: string, content: string) => call(files.PUT, 'PUT', '/api/v1/models/files', { token: tok.operator, body: { path: p, content } });
    expect((await put('models/staging/docs.md', '{% docs branch %}\nThe branch the row came from.\n{% enddocs %}\n')).status).toBe(200);
    const yml = fs.readFileSync(path.join(fx.dataDir, 'models', 'models/staging/schema.yml'), 'utf8');
    expect((await put('models/staging/schema.yml', `version: 2
models:
  - name: stg_customers
    description: Customers of every branch ({{ doc("branch") }})
    columns:
      - name: BRANCH_ID
        description: "{{ doc('branch') }}"
        tests:
          - not_null
          - accepted_values: { values: [1, 2], quote: false }
`)).status).toBe(200);
    await fx.db.pool.query(`INSERT INTO model_results (run_id, command, node, kind, status, rows, duration_ms) VALUES ('r-old', 'test', 'accepted_values_stg_customers_BRANCH_ID', 'test', 'pass', 0, 3)`);
    const r = await call(project.GET, 'GET', '/api/v1/models', { token: tok.viewer });
    expect(r.body.errors).toEqual([]);
    const m = r.body.models.find((x: { name: string }) => x.name === 'stg_customers');
    expect(m.description).toBe('Customers of every branch (The branch the row came from.)');
    expect(m.columns).toEqual([{ name: 'BRANCH_ID', description: 'The branch the row came from.' }]);
    expect(r.body.files).toContainEqual({ path: 'models/staging/docs.md', kind: 'docs' });
    expect(r.body.tests.find((t: { name: string }) => t.name === 'accepted_values_stg_customers_BRANCH_ID__False__1__2').last).toMatchObject({ status: 'pass', runId: 'r-old' });
    expect((await put('models/staging/schema.yml', yml.replace(/description: .*/, 'description: "{{ doc(\'nope\') }}"'))).status).toBe(200);
    const bad = await call(project.GET, 'GET', '/api/v1/models', { token: tok.viewer });
    expect(bad.body.errors.map((e: { message: string }) => e.message)).toEqual([expect.stringMatching(/models\/staging\/schema\.yml: stg_customers\.description: line 1: doc\('nope'\) names no docs block .*the project has branch/)]);
    await put('models/staging/schema.yml', yml);
  });
});
