import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openChdbTarget } from './chdb-target';
import { openClickHouseTarget } from './clickhouse-target';
import type { Target } from './target';
import { checkSql, lakeRoots } from './sql-guard';
import { executeProject } from './execute';
import { parseProject } from './project';
import { SHOP_PROJECT } from './test-project';

// No ClickHouse server runs here: the @clickhouse/client code path is tested
// against a local HTTP server speaking ClickHouse's HTTP interface, which
// checks each request (method, auth, SQL) and keeps just enough catalog state
// (which tables exist) to answer the engine's questions. The SQL allow-list's
// parse requests (formatQuerySingleLine, EXPLAIN AST) are answered by a real
// ClickHouse parser: the embedded one, in this process.

interface Req { method: string; url: string; auth: string; sql: string }
let server: http.Server; let url = ''; const reqs: Req[] = [];
let parser: Target; let parserDir = '';
const tables = new Map<string, string>();

async function answer(sql: string): Promise<{ meta: { name: string; type: string }[]; data: Record<string, unknown>[] } | null> {
  if (/^SELECT formatQuerySingleLine\(/.test(sql)) { const r = await parser.query(sql); return { meta: r.columns, data: r.rows }; }
  let m = /^SELECT engine FROM system\.tables WHERE database = '(\w+)' AND name = '(\w+)'/.exec(sql);
  if (m) { const e = tables.get(`${m[1]}.${m[2]}`); return { meta: [{ name: 'engine', type: 'String' }], data: e ? [{ engine: e }] : [] }; }
  // a test's failures value, dbt's count(*) (none fail) / a built table's row count
  if (/^SELECT count\(\*\) AS failures\nFROM \(/.test(sql)) return { meta: [{ name: 'failures', type: 'UInt64' }], data: [{ failures: 0 }] };
  if (/^SELECT count\(\) AS n FROM `/.test(sql)) return { meta: [{ name: 'n', type: 'UInt64' }], data: [{ n: 3 }] };
  if (/^SELECT \* FROM \(/.test(sql)) return { meta: [], data: [] };
  // a seed's NULL count per column after loading (none lost)
  m = /^SELECT (countIf\(isNull\(`\w+`\)\) AS n\d+(?:, )?)+ FROM `\w+`\.`\w+`$/.exec(sql); if (m) return { meta: [], data: [{ n0: 0, n1: 1 }] };
  m = /^CREATE OR REPLACE VIEW `(\w+)`\.`(\w+)`/.exec(sql); if (m) { tables.set(`${m[1]}.${m[2]}`, 'View'); return null; }
  m = /^CREATE TABLE `(\w+)`\.`(\w+)`/.exec(sql); if (m) { tables.set(`${m[1]}.${m[2]}`, 'MergeTree'); return null; }
  m = /^RENAME TABLE `(\w+)`\.`(\w+)` TO `(\w+)`\.`(\w+)`$/.exec(sql); if (m) { tables.set(`${m[3]}.${m[4]}`, tables.get(`${m[1]}.${m[2]}`)!); tables.delete(`${m[1]}.${m[2]}`); return null; }
  m = /^DROP (?:TABLE|VIEW) (?:IF EXISTS )?`(\w+)`\.`(\w+)`/.exec(sql); if (m) { tables.delete(`${m[1]}.${m[2]}`); return null; }
  if (/^(CREATE DATABASE|EXCHANGE TABLES|INSERT INTO)/.test(sql)) return null;
  throw new Error(`unexpected statement: ${sql}`);
}

beforeAll(async () => {
  parserDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-parser-'));
  parser = await openChdbTarget({ stateDir: parserDir, cwd: process.cwd() });
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const sql = body.replace(/\s*\nFORMAT JSON$/, '').trim();
      reqs.push({ method: req.method!, url: req.url!, auth: req.headers.authorization ?? '', sql });
      try {
        if (req.headers.authorization !== `Basic ${Buffer.from('modeler:s3cret').toString('base64')}`) {
          res.writeHead(401, { 'X-ClickHouse-Exception-Code': '516' }); res.end('Code: 516. DB::Exception: modeler: Authentication failed. (AUTHENTICATION_FAILED)'); return;
        }
        if (sql.startsWith('EXPLAIN AST ')) {
          // sent raw (no FORMAT appended), answered as raw text
          if (/FORMAT JSON$/.test(body) || !/default_format=TabSeparatedRaw/.test(req.url!)) throw new Error(`EXPLAIN AST must be sent raw: ${req.url} ${body}`);
          res.writeHead(200, { 'content-type': 'text/tab-separated-values' }); res.end((await parser.explainAst(sql.slice('EXPLAIN AST '.length))).join('\n') + '\n'); return;
        }
        const a = await answer(sql);
        res.writeHead(200, { 'content-type': 'application/json', 'X-ClickHouse-Summary': '{"read_rows":"0"}' });
        res.end(a ? JSON.stringify({ ...a, rows: a.data.length }) : '');
      } catch (e) {
        res.writeHead(500, { 'X-ClickHouse-Exception-Code': '62' }); res.end(`Code: 62. DB::Exception: ${(e as Error).message}. (SYNTAX_ERROR)`);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await parser?.close();
  if (parserDir) fs.rmSync(parserDir, { recursive: true, force: true });
});

const WH = '/srv/tributary/warehouse';
const project = () => parseProject('/p', SHOP_PROJECT);
const resolveSource = async (ident: string) => `file://${WH}/${ident.replace('.', '/')}`;

describe('ClickHouse server target (@clickhouse/client over HTTP)', () => {
  test('build sends the expected statements, authenticated, reading the lake as the server sees it', async () => {
    const t = await openClickHouseTarget({ url, user: 'modeler', password: 's3cret', database: 'analytics', warehouse: `file://${WH}`, serverWarehouse: '/var/lib/clickhouse/user_files/lake' });
    try {
      const s = await executeProject(project(), t, { command: 'build', resolveSource, threads: 1, select: ['+customer_orders'] });
      expect(s.results.filter((r) => r.status === 'error').map((r) => r.error)).toEqual([]);
      expect(s.ok).toBe(true);
      expect(reqs.filter((r) => r.method !== 'POST' || !r.url.startsWith('/?')).map((r) => r.method + ' ' + r.url)).toEqual([]);
      const sqls = reqs.map((r) => r.sql);
      // the model's SELECT under dbt's session settings, stored with the view so any reader gets them
      const settings = " SETTINGS join_use_nulls = 1, union_default_mode = 'DISTINCT', except_default_mode = 'DISTINCT', intersect_default_mode = 'DISTINCT', cast_keep_nullable = 1, group_by_use_nulls = 1";
      expect(sqls).toContain(`CREATE OR REPLACE VIEW \`analytics\`.\`stg_customers\` AS\nSELECT * FROM (\nSELECT id AS customer_id, name FROM icebergLocal('/var/lib/clickhouse/user_files/lake/shop/customers')\n)${settings}`);
      const create = sqls.find((x) => x.startsWith('CREATE TABLE `analytics`.`customer_orders__tmp_'))!;
      expect(create).toMatch(/^CREATE TABLE `analytics`\.`customer_orders__tmp_[0-9a-f]{8}` ENGINE = MergeTree\(\) ORDER BY customer_id SETTINGS allow_nullable_key = 1 AS\nSELECT \* FROM \(\nSELECT c\.customer_id/);
      expect(create.endsWith(`\n)${settings}`)).toBe(true);
      const tmp = /`(customer_orders__tmp_[0-9a-f]{8})`/.exec(create)![1];
      expect(sqls).toContain(`RENAME TABLE \`analytics\`.\`${tmp}\` TO \`analytics\`.\`customer_orders\``);
      expect(sqls.some((x) => /^SELECT count\(\*\) AS failures\nFROM \(\nSELECT customer_id AS unique_field, count\(\) AS n_records\nFROM `analytics`\.`stg_customers`/.test(x))).toBe(true);
      // a second build of the table swaps it in atomically
      reqs.length = 0;
      expect((await executeProject(project(), t, { command: 'run', resolveSource, select: ['customer_orders'] })).ok).toBe(true);
      const tmp2 = /`(customer_orders__tmp_[0-9a-f]{8})`/.exec(reqs.map((r) => r.sql).find((x) => x.startsWith('CREATE TABLE'))!)![1];
      expect(reqs.map((r) => r.sql)).toContain(`EXCHANGE TABLES \`analytics\`.\`${tmp2}\` AND \`analytics\`.\`customer_orders\``);
      expect(reqs.map((r) => r.sql)).toContain(`DROP TABLE IF EXISTS \`analytics\`.\`${tmp2}\` SYNC`);
    } finally { await t.close(); }
  });

  test('seed: a typed table built aside from the CSV\'s values, then renamed in, on the server', async () => {
    const t = await openClickHouseTarget({ url, user: 'modeler', password: 's3cret', database: 'analytics' });
    try {
      reqs.length = 0;
      const p = parseProject('/p', { 'seeds/codes.csv': "code,n\nA,1\nB's,\n", 'seeds/codes.yml': 'seeds:\n  - name: codes\n    config: {column_types: {n: Int32}}\n' });
      const s = await executeProject(p, t, { command: 'seed', resolveSource });
      expect(s.results).toMatchObject([{ name: 'codes', kind: 'seed', status: 'success', rows: 2 }]);
      const sqls = reqs.map((r) => r.sql);
      const create = sqls.find((x) => x.startsWith('CREATE TABLE'))!;
      expect(create).toMatch(/^CREATE TABLE `analytics`\.`codes__seed_[0-9a-f]{8}` \(`code` Nullable\(String\), `n` Nullable\(Int32\)\) ENGINE = MergeTree\(\) ORDER BY tuple\(\)$/);
      const tmp = /`(codes__seed_[0-9a-f]{8})`/.exec(create)![1];
      expect(sqls).toContain(`INSERT INTO \`analytics\`.\`${tmp}\` SELECT CAST(c0 AS Nullable(String)), CAST(c1 AS Nullable(Int32)) FROM values('c0 Nullable(String), c1 Nullable(String)', ('A', '1'), ('B\\'s', NULL))`);
      expect(sqls).toContain(`RENAME TABLE \`analytics\`.\`${tmp}\` TO \`analytics\`.\`codes\``);
    } finally { await t.close(); }
  });

  test('the SQL allow-list runs through the server\'s parser: FORMAT the client appends does not reach the explained query', async () => {
    const t = await openClickHouseTarget({ url, user: 'modeler', password: 's3cret', database: 'analytics', warehouse: `file://${WH}`, serverWarehouse: '/var/lib/clickhouse/user_files/lake' });
    try {
      const policy = { database: 'analytics', lakeRoots: lakeRoots(t.lake, [`file://${WH}`]), use: 'query' as const };
      await checkSql(t, "SELECT * FROM analytics.x JOIN icebergLocal('/var/lib/clickhouse/user_files/lake/shop/orders') AS o ON 1", policy);
      await expect(checkSql(t, "SELECT * FROM `file`('/etc/passwd', 'LineAsString')", policy)).rejects.toThrow(/table function file\(\)/);
      await expect(checkSql(t, "SELECT * FROM icebergLocal('/var/lib/clickhouse/user_files/other')", policy)).rejects.toThrow(/icebergLocal/);
      await expect(checkSql(t, 'SELECT 1 FORMAT CSV', policy)).rejects.toThrow(/FORMAT/);
    } finally { await t.close(); }
  });

  test('a server error becomes the model\'s error; a wrong password is reported', async () => {
    const bad = await openClickHouseTarget({ url, user: 'modeler', password: 'wrong', database: 'analytics' });
    try {
      const s = await executeProject(project(), bad, { command: 'run', resolveSource, select: ['stg_customers'] });
      expect(s.ok).toBe(false);
      expect(s.results[0].error).toMatch(/^models: ClickHouse: .*Authentication failed/);
    } finally { await bad.close(); }
  });
});
