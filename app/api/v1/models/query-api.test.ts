// POST /api/v1/models/query end to end: the route enqueues a models.query job,
// a real worker (in this process, with the embedded ClickHouse) checks the SQL
// against the allow-list and runs it; the route answers the outcome. The
// attacks of issue 20 (filesystem(), `file`(), oss() and url() to a listener)
// are 400s naming the function, and the listener receives nothing.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lake } from '@/lib/lake';
import { makeModelsWarehouse, makeShopLake } from '@/lib/models/test-project';
import { chdbLakeAccess } from '@/lib/models/chdb-target';
import { renderSource } from '@/lib/models/source-sql';
import * as query from './query/route';
import { callRoute } from '../test-call';
import { useRouteServer } from '../test-server';

let lake: Lake; let listener: http.Server; let port = 0;
const hits: string[] = [];

// A listener that records every request: the attacks below must never reach it.
beforeAll(async () => {
  listener = http.createServer((req, res) => { hits.push(`${req.method} ${req.url}`); res.end('a\n1\n'); });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  port = (listener.address() as AddressInfo).port;
});
afterAll(async () => { await new Promise((r) => listener?.close(r)); });

const fx = useRouteServer({
  name: 'query-api', queue: true, roles: ['operator', 'viewer'],
  dataDir: makeModelsWarehouse,
  env: (dir) => ({ TRIBUTARY_WAREHOUSE: `file://${dir}` }),
  prepare: async ({ db, dataDir }) => {
    lake = await makeShopLake(db.pool, `file://${dataDir}`);
    fs.writeFileSync(path.join(dataDir, 'secret.key'), 'not-for-viewers');
  },
  seed: async () => { await fx.startWorker(); },
});
const tok = fx.tok;

const ask = (token: string, sql: string) => callRoute(query.POST, 'POST', '/api/v1/models/query', { token, body: { sql } });

describe('POST /api/v1/models/query', () => {
  it('answers a checked SELECT with its rows: generators, the lake as source() renders it, the row cap', async () => {
    const a = await ask(tok.viewer, 'SELECT number AS n FROM numbers(5)');
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ kind: 'models.query', status: 'succeeded', result: { truncated: false, target: 'embedded' } });
    expect(a.body.result.rows.map((r: { n: unknown }) => Number(r.n))).toEqual([0, 1, 2, 3, 4]);
    const src = renderSource((await lake.loadTable('shop.customers')).location, chdbLakeAccess(process.cwd()));
    const b = await ask(tok.viewer, `SELECT count() AS n FROM ${src}`);
    expect(b.status).toBe(200);
    expect(Number(b.body.result.rows[0].n)).toBe(3);
    const c = await ask(tok.viewer, 'SELECT number FROM system.numbers');
    expect(c.status).toBe(200);
    expect(c.body.result).toMatchObject({ truncated: true });
    expect(c.body.result.rows).toHaveLength(1000);
  });

  it('refuses the attacks of issue 20 with a 400 naming the function, for viewers and operators, and nothing reaches the listener', async () => {
    const url = `http://127.0.0.1:${port}`;
    for (const token of [tok.viewer, tok.operator]) {
      for (const [sql, name] of [
        [`SELECT * FROM filesystem('${fx.dataDir}')`, /table function filesystem\(\)/],
        ["SELECT * FROM `file`('/proc/self/environ','RawBLOB')", /table function file\(\)/],
        [`SELECT * FROM oss('${url}/bucket/key.csv', 'CSV')`, /table function oss\(\)/],
        [`SELECT * FROM \`url\`('${url}/x', CSV, 'a String')`, /table function url\(\)/],
        [`SELECT * FROM models.x WHERE a IN (SELECT a FROM URL('${url}/y', CSV, 'a String'))`, /table function URL\(\)/i],
        [`WITH c AS (SELECT * FROM s3('${url}/b/k.csv', CSV)) SELECT * FROM c`, /table function s3\(\)/],
        [`SELECT * FROM icebergS3(tributary_lake_s3, url = '${url}/lake/')`, /icebergS3/],
        [`SELECT * FROM icebergLocal('${path.relative(process.cwd(), fx.dataDir)}/../../..')`, /icebergLocal/],
        ["SELECT file('secret.key')", /function file\(\)/],
        ['SELECT * FROM system.named_collections', /table system\.named_collections/],
        ['SELECT 1 SETTINGS readonly = 0', /SETTINGS/],
        ['INSERT INTO models.x SELECT 1', /only one SELECT/],
      ] as const) {
        const r = await ask(token, sql);
        expect(r.status, sql).toBe(400);
        expect(r.body.error, sql).toMatchObject({ code: 'validation', field: 'sql' });
        expect(r.body.error.message, sql).toMatch(name);
      }
    }
    const syntax = await ask(tok.viewer, 'SELEC 1');
    expect(syntax.status).toBe(400);
    expect(syntax.body.error.message).toMatch(/Syntax error/);
    // the checks above ran in the worker; the listener must have seen none of them
    expect(hits).toEqual([]);
  });
});
