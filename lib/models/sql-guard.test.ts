// The SQL allow-list against the embedded ClickHouse's own parser: a corpus
// built from chdb's system.table_functions (every table function that is not a
// lake reader or a generator) and its host-reaching scalars, each in plain,
// back-quoted, upper-case, nested, IN-subquery, WITH, JOIN and view forms,
// must be refused naming the function; what source() renders, generators and
// the models' tables still pass.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChdbTarget, S3_COLLECTION, chdbLakeAccess } from './chdb-target';
import { serverLakeAccess } from './clickhouse-target';
import { renderSource } from './source-sql';
import { GENERATOR_TABLE_FUNCTIONS, HOST_SCALARS, KNOWN_TABLE_FUNCTIONS, LAKE_TABLE_FUNCTIONS, parseAstDump, type SqlPolicy } from './sql-allow-list';
import { checkSql, lakeRoots, SQL_REFUSED } from './sql-guard';
import { queryLimits, readOnlyQuery } from './read-only-query';
import type { Target } from './target';
import { executeProject } from './execute';
import { parseProject } from './project';

let target: Target; let stateDir: string;
const cwd = process.cwd();
const warehouse = path.join(cwd, 'lib/models/.wh-guard');
const lake = chdbLakeAccess(warehouse);
const policy: SqlPolicy = { database: 'models', lakeRoots: lakeRoots(lake, [`file://${warehouse}`]), use: 'query' };
const s3Lake = chdbLakeAccess(cwd, { endpoint: 'http://minio:9000', accessKeyId: 'k', secretAccessKey: 's' });
const s3Policy: SqlPolicy = { database: 'models', lakeRoots: lakeRoots(s3Lake, ['s3://lake/wh']), use: 'model' };

let tableFunctions: string[] = []; let scalars: string[] = [];

beforeAll(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sql-guard-'));
  target = await openChdbTarget({ stateDir, cwd });
  tableFunctions = (await target.query('SELECT name FROM system.table_functions ORDER BY name')).rows.map((r) => String(r.name));
  const fns = (await target.query('SELECT name FROM system.functions WHERE NOT is_aggregate ORDER BY name')).rows.map((r) => String(r.name));
  scalars = fns.filter((n) => HOST_SCALARS.includes(n.toLowerCase()) || /^(dict|region)/i.test(n));
});
afterAll(async () => {
  await target?.close();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

const refusal = async (sql: string, p: SqlPolicy = policy) => {
  try { await checkSql(target, sql, p); } catch (e) { return (e as Error).message; }
  return null;
};
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A table function call in every form users (and attackers) write it. */
function forms(f: string, args = "('x')"): [string, string, string][] {
  const call = `${f}${args}`; const up = `${f.toUpperCase()}${args}`;
  return [
    ['plain', `SELECT * FROM ${call}`, f],
    ['back-quoted', `SELECT * FROM \`${f}\`${args}`, f],
    ['upper-case', `SELECT * FROM ${up}`, f.toUpperCase()],
    ['nested', `SELECT * FROM (SELECT * FROM (SELECT a FROM ${call}) AS s) AS t`, f],
    ['IN subquery', `SELECT 1 FROM models.t WHERE a IN (SELECT a FROM ${call})`, f],
    ['WITH', `WITH c AS (SELECT * FROM ${call}) SELECT * FROM c`, f],
    ['JOIN', `SELECT * FROM models.t AS a JOIN ${call} AS b ON a.id = b.id`, f],
    ['view', `SELECT * FROM view(SELECT * FROM ${call})`, f],
  ];
}

describe('the SQL allow-list (ClickHouse parser)', () => {
  it('knows every table function this ClickHouse lists: each is allowed, or refused by name', () => {
    expect(tableFunctions.length).toBeGreaterThan(50);
    const unknown = tableFunctions.filter((f) => ![...GENERATOR_TABLE_FUNCTIONS, ...LAKE_TABLE_FUNCTIONS, ...KNOWN_TABLE_FUNCTIONS, 'format'].includes(f.toLowerCase()));
    // a new table function is refused anyway (allow-list); this keeps the list of names current
    expect(unknown).toEqual([]);
  });

  it('refuses every table function that reads files, the network, other databases or runs programs, in every form', async () => {
    const allowed = [...GENERATOR_TABLE_FUNCTIONS, ...LAKE_TABLE_FUNCTIONS];
    const refused = tableFunctions.filter((f) => !allowed.includes(f.toLowerCase()));
    for (const must of ['file', 'url', 's3', 'remote', 'filesystem', 'oss', 'cosn', 'fileCluster', 'paimon', 'paimonS3', 'ytsaurus', 'prometheusQuery', 'eval', 'input', 'jdbc', 'odbc', 'hdfs', 'azureBlobStorage', 'gcs', 'mongodb', 'redis', 'sqlite', 'merge', 'cluster', 'view', 'executable', 'postgresql', 'mysql', 's3Cluster', 'dictionary', 'urlCluster']) {
      expect(refused).toContain(must);
    }
    const misses: string[] = [];
    for (const f of refused) {
      const args = /^view$/i.test(f) ? '(SELECT 1)' : /^viewIfPermitted$/i.test(f) ? "(SELECT 1 ELSE null('a UInt8'))" : "('x')";
      for (const [form, sql, name] of forms(f, args)) {
        const msg = await refusal(sql);
        // ClickHouse spells case-insensitive names (EVAL) its own way in the tree
        if (!msg || !msg.startsWith(SQL_REFUSED) || !new RegExp(`table function ${esc(name)}\\(\\)`, 'i').test(msg)) misses.push(`${f} ${form}: ${msg}`);
      }
    }
    expect(misses).toEqual([]);
  });

  it('refuses the scalar functions that reach the host, dictionaries and Join tables, in every form', async () => {
    for (const must of ['file', 'dictGet', 'dictGetString', 'dictHas', 'joinGet', 'hasColumnInTable', 'getServerSetting', 'getSetting', 'catboostEvaluate', 'regionToName']) expect(scalars).toContain(must);
    const misses: string[] = [];
    for (const f of scalars) {
      for (const sql of [
        `SELECT ${f}('x', 'y')`, `SELECT \`${f}\`('x')`, `SELECT ${f.toUpperCase()}('x')`, `SELECT * FROM models.t WHERE a = (SELECT ${f}('x'))`,
        `WITH c AS (SELECT ${f}('x') AS v) SELECT * FROM c`, `SELECT * FROM models.t AS a JOIN (SELECT ${f}('x') AS id) AS b USING id`,
      ]) {
        const msg = await refusal(sql);
        if (!msg || !new RegExp(`function ${esc(f)}\\(\\)`, 'i').test(msg)) misses.push(`${sql}: ${msg}`);
      }
    }
    expect(misses).toEqual([]);
    // the attack from the issue, as the query box wraps it
    expect(await refusal(readOnlyQuery("SELECT * FROM `file`('/proc/self/environ','RawBLOB')"))).toMatch(/table function file\(\)/);
  });

  it('sees calls in every clause, including those whose parse-tree printout hides them (APPLY)', async () => {
    const misses: string[] = [];
    for (const sql of [
      'SELECT * APPLY(file) FROM models.t', 'SELECT * APPLY(x -> file(x)) FROM models.t', 'SELECT COLUMNS(\'a\') APPLY(dictGet) FROM models.t',
      "SELECT * REPLACE(file(a) AS a) FROM models.t", "SELECT a FROM models.t ORDER BY a WITH FILL FROM length(file('x')) TO 10",
      "SELECT a, b FROM models.t ORDER BY a WITH FILL INTERPOLATE (b AS file('y'))", "SELECT sum(a) OVER (PARTITION BY file('x')) FROM models.t",
      "SELECT sum(a) OVER w FROM models.t WINDOW w AS (ORDER BY file('z'))", "SELECT quantile(length(file('p')))(a) FROM models.t",
      "SELECT count() FILTER (WHERE file('q') = '') FROM models.t", "SELECT a FROM models.t LIMIT 1 BY file('l')", "SELECT a FROM models.t QUALIFY file('qq') = ''",
      "SELECT a FROM models.t GROUP BY GROUPING SETS ((a), (file('g')))", "SELECT a FROM models.t PREWHERE file('w') = '' HAVING file('h') = ''",
      "SELECT CAST(file('c') AS String)", "SELECT map('k', file('m'))", "SELECT [file('arr')]", "SELECT (1, file('tup'))", "SELECT a FROM models.t SAMPLE 1 / 2 ORDER BY file('o') LIMIT 1 OFFSET 0",
    ]) {
      const msg = await refusal(sql);
      if (!msg || !/function (file|dictGet)\(\)|APPLY/.test(msg)) misses.push(`${sql}: ${msg}`);
    }
    expect(misses).toEqual([]);
  });

  it('refuses tables outside the models database, and unqualified names that are not WITH names', async () => {
    for (const [sql, what] of [
      ['SELECT * FROM system.tables', 'table system.tables'], ['SELECT * FROM `system`.`tables`', 'table system.tables'],
      ['SELECT * FROM default.x', 'table default.x'], ['SELECT * FROM INFORMATION_SCHEMA.TABLES', 'table INFORMATION_SCHEMA.TABLES'],
      ['SELECT * FROM x', 'table x'], ['SELECT 1 WHERE 1 IN system.users', 'table system.users'],
      ['SELECT * FROM models.t AS a JOIN system.processes AS p ON 1', 'table system.processes'],
      ['SELECT * FROM (SELECT * FROM (SELECT * FROM system.named_collections))', 'table system.named_collections'],
      ['SELECT * FROM MODELS.t', 'table MODELS.t'],
    ] as const) expect(await refusal(sql), sql).toContain(what);
  });

  it('refuses non-SELECT statements, SETTINGS, FORMAT, INTO OUTFILE, several statements and tricky names', async () => {
    for (const [sql, what] of [
      ['INSERT INTO models.t SELECT 1', /Insert statements/], ['SYSTEM SHUTDOWN', /statements \(only one SELECT/], ['SET readonly = 0', /Set statements/],
      ["ATTACH TABLE models.x FROM '/etc' (a String) ENGINE = File(CSV)", /statements/], ['CREATE TABLE models.x (a Int8) ENGINE = Memory', /Create/],
      ['ALTER TABLE models.t DELETE WHERE 1', /Alter/], ['DROP TABLE models.t', /Drop/], ['KILL QUERY WHERE 1', /statements/], ['OPTIMIZE TABLE models.t', /statements/],
      ['SHOW TABLES', /statements/], ["DESCRIBE TABLE url('http://127.0.0.1:1/x', CSV)", /statements/], ["EXPLAIN SELECT * FROM url('http://x', CSV)", /statements/],
      ['SELECT 1 SETTINGS readonly = 0', /SETTINGS/], ['SELECT * FROM (SELECT 1 SETTINGS readonly = 0)', /SETTINGS/],
      ["SELECT 1 INTO OUTFILE 'x'", /INTO OUTFILE/], ['SELECT 1 FORMAT CSV', /FORMAT/],
      ['SELECT `a\nb`(1)', /quoted names/], ['SELECT `models.x`', /quoted names/], ['SELECT * FROM `models.t`', /quoted names/],
    ] as const) expect(String(await refusal(sql)), sql).toMatch(what);
    await expect(checkSql(target, 'SELECT 1; DROP TABLE models.t', policy)).rejects.toThrow(/Multi-statements/);
    await expect(checkSql(target, 'SELEC 1', policy)).rejects.toThrow(/Syntax error/);
    await expect(checkSql(target, '  ;', policy)).rejects.toThrow(/empty/);
    // SETTINGS in a model (not the query box) are the model's own
    expect(await refusal('SELECT 1 SETTINGS max_threads = 1', { ...policy, use: 'model' })).toBeNull();
    expect(await refusal('SELECT * FROM (SELECT 1 SETTINGS max_threads = 1)', { ...policy, use: 'model' })).toBeNull();
  });

  it('allows what source() renders below the warehouse, and nothing beside it', async () => {
    const src = renderSource(`file://${warehouse}/shop/customers`, lake);
    expect(src).toBe(`icebergLocal('${warehouse}/shop/customers')`);
    for (const sql of [
      `SELECT * FROM ${src}`, `SELECT * FROM ICEBERGLOCAL('${warehouse}/shop/customers')`,
      'SELECT number FROM numbers(10)', 'SELECT * FROM `numbers`(3)', 'SELECT * FROM zeros(2)', "SELECT * FROM values('a UInt8', 1, 2)",
      'SELECT * FROM generateSeries(1, 3)', 'SELECT * FROM generate_series(1, 3)', "SELECT * FROM null('a UInt8')",
      'SELECT * FROM system.one', 'SELECT * FROM system.numbers LIMIT 3', 'SELECT * FROM models.t', 'SELECT * FROM `models`.`t` AS x',
      'WITH c AS (SELECT * FROM models.t), d AS (SELECT 1) SELECT * FROM c JOIN d ON 1', 'WITH 1 AS k SELECT k', 'WITH [1, 2] AS ks SELECT 1 IN ks', 'SELECT a FROM models.t WHERE a IN models.u',
      'SELECT a FROM models.t WHERE a IN (SELECT a FROM models.u) UNION ALL SELECT 1 FROM system.one', "SELECT format('{} {}', 1, 2), hostName(), lower('X'), arrayMap(x -> x + 1, [1])",
      readOnlyQuery('SELECT * FROM models.t'), readOnlyQuery('WITH a AS (SELECT 1) SELECT * FROM a -- ; drop'),
    ]) expect(await refusal(sql), sql).toBeNull();
    for (const sql of [
      `SELECT * FROM icebergLocal('${warehouse}/../../secret.key')`, "SELECT * FROM icebergLocal('/etc')", "SELECT * FROM icebergLocal('lib')",
      "SELECT * FROM icebergLocal('lib/models/.wh-guard/shop/customers')", `SELECT * FROM icebergLocal('${warehouse}-other/x')`, `SELECT * FROM icebergLocal('${warehouse}/*')`,
      `SELECT * FROM icebergLocal('${warehouse}/t', 'Parquet')`, `SELECT * FROM icebergS3(${S3_COLLECTION}, url = 'http://minio:9000/lake/wh/t/')`,
    ]) expect(await refusal(sql), sql).toMatch(/icebergLocal|icebergS3/);
  });

  it('s3: the named collection only with a URL below the warehouse', async () => {
    const src = renderSource('s3://lake/wh/shop/orders', s3Lake);
    expect(src).toBe(`icebergS3(${S3_COLLECTION}, url = 'http://minio:9000/lake/wh/shop/orders/')`);
    expect(await refusal(`SELECT * FROM ${src}`, s3Policy)).toBeNull();
    for (const sql of [
      `SELECT * FROM icebergS3(${S3_COLLECTION}, url = 'http://127.0.0.1:9999/lake/wh/x/')`, `SELECT * FROM icebergS3(${S3_COLLECTION}, url = 'http://minio:9000/lake/other/')`,
      `SELECT * FROM icebergS3(${S3_COLLECTION}, url = 'http://minio:9000/lake/wh/../other/')`, `SELECT * FROM icebergS3(${S3_COLLECTION}, url = 'http://minio:9000/lake/wh/{a,b}/')`,
      `SELECT * FROM icebergS3(${S3_COLLECTION})`, `SELECT * FROM icebergS3(${S3_COLLECTION}, url = 'http://minio:9000/lake/wh/x/', filename = 'y')`,
      "SELECT * FROM icebergS3('http://minio:9000/lake/wh/x/')", `SELECT * FROM icebergS3(other_collection, url = 'http://minio:9000/lake/wh/x/')`,
      `SELECT * FROM s3(${S3_COLLECTION}, url = 'http://minio:9000/lake/wh/x/')`, `SELECT * FROM oss(${S3_COLLECTION}, url = 'http://127.0.0.1:1/x')`,
    ]) expect(await refusal(sql, s3Policy), sql).toMatch(/icebergS3|table function (s3|oss)\(\)/);
    // a ClickHouse server target: plain URLs below the warehouse, no collection
    const server = serverLakeAccess({ warehouse: 's3://lake/wh', s3: { endpoint: 'http://minio:9000' } });
    const p: SqlPolicy = { database: 'm', lakeRoots: lakeRoots(server, ['s3://lake/wh']), use: 'model' };
    expect(await refusal(`SELECT * FROM ${renderSource('s3://lake/wh/shop/orders', server)}`, p)).toBeNull();
    expect(await refusal("SELECT * FROM icebergS3('http://minio:9000/lake/elsewhere/')", p)).toMatch(/icebergS3/);
  });

  it('the query box runs with its limits: rows cut, time and memory bounded, no writes', async () => {
    const run = (sql: string, o: Parameters<typeof queryLimits>[0] = {}) => target.query(`${readOnlyQuery(sql)}\n${queryLimits(o)}`);
    expect((await run('SELECT number FROM system.numbers')).rows).toHaveLength(1001);
    await expect(run('SELECT count() FROM system.numbers', { maxExecutionTime: 1 })).rejects.toThrow(/TIMEOUT_EXCEEDED|Timeout exceeded/);
    // the session's next result is whole (chdb keeps a failed query's started output otherwise)
    expect((await target.query('SELECT 1 AS a')).rows).toEqual([{ a: 1 }]);
    await expect(run('SELECT groupArray(number) FROM numbers(50000000)', { maxMemoryUsage: 20_000_000 })).rejects.toThrow(/MEMORY_LIMIT_EXCEEDED|memory limit/i);
    expect((await target.query('SELECT 2 AS a')).rows).toEqual([{ a: 2 }]);
    // readonly = 2 as ClickHouse applies it: no DDL even from inside a query
    await expect(target.query(`CREATE TABLE models.rw (a Int8) ENGINE = Memory ${queryLimits()}`)).rejects.toThrow(/READONLY|readonly/i);
  });

  it('reads back only well-formed trees', () => {
    expect(parseAstDump(['SelectWithUnionQuery (children 1)', ' ExpressionList (children 1)', "  Literal 'a (alias b)' (alias c)"])).toEqual({ type: 'SelectWithUnionQuery', name: undefined, children: [{ type: 'ExpressionList', name: undefined, children: [{ type: 'Literal', name: "'a (alias b)'", alias: 'c', children: [] }] }] });
    expect(() => parseAstDump(['SelectWithUnionQuery (children 1)', ' Function a', 'b (children 1)'])).toThrow(/unreadable/);
    expect(() => parseAstDump(['SelectWithUnionQuery (children 2)', ' ExpressionList'])).toThrow(/unreadable/);
    expect(() => parseAstDump(['SelectWithUnionQuery', ' ExpressionList'])).toThrow(/rows after the root/);
  });

  it('a build checks every model and test before it runs: refused ones are errors naming the function or table, and nothing is created', async () => {
    const files = {
      'dbt_project.yml': 'name: guard\n',
      'models/ok.sql': 'SELECT number AS n FROM numbers(3)',
      'models/downstream.sql': "{{ config(materialized='table') }}\nSELECT n FROM {{ ref('ok') }}",
      'models/evil_table.sql': "{{ config(materialized='table') }}\nSELECT * FROM `file`('/etc/passwd', 'LineAsString')",
      'models/evil_view.sql': "SELECT * FROM (SELECT 1) AS a JOIN url('http://127.0.0.1:1/x', CSV, 'a String') AS b ON 1",
      'models/evil_dict.sql': "WITH d AS (SELECT dictGet('x', 'y', 1) AS v) SELECT * FROM d",
      'tests/peek_users.sql': 'SELECT * FROM system.users',
      'models/evil_engine.sql': "{{ config(materialized='table', engine=\"File(CSV)\") }}\nSELECT 1 AS a",
      'models/evil_order.sql': "{{ config(materialized='table', order_by=\"length(file('/etc/passwd'))\") }}\nSELECT 1 AS a",
      'models/evil_key.sql': "{{ config(materialized='incremental', unique_key=\"a FROM system.users\") }}\nSELECT 1 AS a",
      'models/fine_config.sql': "{{ config(materialized='table', engine='ReplacingMergeTree(v)', order_by=['a', 'cityHash64(a)'], partition_by='a % 2') }}\nSELECT 1 AS a, 2 AS v",
    };
    const s = await executeProject(parseProject('/nonexistent-guard-project', files, {}), target, { command: 'build', resolveSource: async () => { throw new Error('no sources here'); } });
    const r = Object.fromEntries(s.results.map((x) => [x.name, x]));
    expect(r.ok.status).toBe('success');
    expect(r.downstream.status).toBe('success');
    expect(r.evil_table).toMatchObject({ status: 'error', error: expect.stringMatching(/refused by the SQL allow-list: table function file\(\)/) });
    expect(r.evil_view).toMatchObject({ status: 'error', error: expect.stringMatching(/table function url\(\)/) });
    expect(r.evil_dict).toMatchObject({ status: 'error', error: expect.stringMatching(/function dictGet\(\)/) });
    expect(r.peek_users).toMatchObject({ status: 'error', error: expect.stringMatching(/table system\.users/) });
    expect(r.evil_engine).toMatchObject({ status: 'error', error: expect.stringMatching(/engine File\(CSV\)/) });
    expect(r.evil_order).toMatchObject({ status: 'error', error: expect.stringMatching(/function file\(\)/) });
    expect(r.evil_key).toMatchObject({ status: 'error', error: expect.stringMatching(/table system\.users/) });
    expect(r.fine_config).toMatchObject({ status: 'success' });
    const made = (await target.query("SELECT name FROM system.tables WHERE database = 'models' ORDER BY name")).rows.map((x) => x.name);
    expect(made).toEqual(['downstream', 'fine_config', 'ok']);
  });
});
