import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { compileProject } from './compile';
import { parseProject } from './project';
import { readProjectFiles, writeCompiled, checkProjectPath } from './project-dir';
import { queryLimits, readOnlyQuery } from './read-only-query';
import { renderSource } from './source-sql';
import { chdbLakeAccess } from './chdb-target';
import { serverLakeAccess } from './clickhouse-target';
import { SHOP_PROJECT, writeProject } from './test-project';

const proj = writeProject(SHOP_PROJECT);
afterAll(() => proj.remove());
const CWD = '/work/app';
const resolveSource = async (ident: string) => `file://${CWD}/.data/warehouse/${ident.replace('.', '/')}`;

describe('compile', () => {
  test('rendered SQL of models and tests, written under target/compiled/', async () => {
    const p = parseProject(proj.root, readProjectFiles(proj.root), { min_amount: 4 });
    const nodes = await compileProject(p, { database: 'models', lake: { mode: 'relative', cwd: CWD }, resolveSource });
    const sql = Object.fromEntries(nodes.map((n) => [n.name, n.sql]));
    expect(sql.stg_orders).toBe([
      "SELECT id AS order_id, customer_id, round(amount, 2) AS amount, status, Recorded_updated_at AS updated_at",
      "FROM icebergLocal('.data/warehouse/shop/orders')",
      'WHERE amount >= 4',
    ].join('\n'));
    expect(sql.customer_orders).toBe([
      'SELECT c.customer_id AS customer_id, c.name AS name, count() AS orders, sum(o.amount) AS total',
      'FROM `models`.`stg_customers` AS c',
      'INNER JOIN `models`.`stg_orders` AS o ON o.customer_id = c.customer_id',
      'GROUP BY c.customer_id, c.name',
    ].join('\n'));
    // compile shows the full build: is_incremental() is false
    expect(sql.orders_inc).toBe('SELECT order_id, customer_id, amount, status, updated_at FROM `models`.`stg_orders`');
    expect(sql.unique_stg_orders_order_id).toBe('SELECT order_id AS unique_field, count() AS n_records\nFROM `models`.`stg_orders` AS t\nWHERE order_id IS NOT NULL\nGROUP BY order_id\nHAVING count() > 1');
    expect(sql.accepted_values_stg_orders_status__paid__open__cancelled).toBe("SELECT status AS value_field, count() AS n_records\nFROM `models`.`stg_orders` AS t\nGROUP BY status\nHAVING status NOT IN ('paid', 'open', 'cancelled')");
    expect(sql.relationships_stg_orders_customer_id__customer_id__ref_stg_customers_).toBe('SELECT customer_id AS from_field\nFROM `models`.`stg_orders` AS t\nWHERE customer_id IS NOT NULL\n  AND customer_id NOT IN (SELECT customer_id FROM `models`.`stg_customers` WHERE customer_id IS NOT NULL)');
    expect(sql.not_null_customer_orders_total).toBe('SELECT *\nFROM (SELECT * FROM `models`.`customer_orders` WHERE orders > 0) AS t\nWHERE total IS NULL');
    expect(sql.no_negative_totals).toBe('SELECT * FROM `models`.`customer_orders` WHERE total < 0');
    const written = writeCompiled(proj.root, p.name, nodes.map((n) => ({ path: n.path, sql: n.sql! })));
    expect(written).toContain('target/compiled/shop/models/staging/stg_orders.sql');
    // dbt's layout: below the project's name; generic tests below their schema.yml, by dbt's alias (a hash past 63 characters)
    expect(written).toContain('target/compiled/shop/models/schema.yml/unique_stg_orders_order_id.sql');
    expect(written).toContain(`target/compiled/shop/models/schema.yml/relationships_stg_orders_${crypto.createHash('md5').update('relationships_stg_orders_customer_id__customer_id__ref_stg_customers_').digest('hex')}.sql`);
    expect(fs.readFileSync(path.join(proj.root, 'target/compiled/shop/models/marts/customer_orders.sql'), 'utf8')).toBe(sql.customer_orders + '\n');
    // the project's name is part of the path: one that leads outside target/compiled/ is refused
    expect(() => writeCompiled(proj.root, '../..', [{ path: 'escape.sql', sql: 'SELECT 1' }])).toThrow(/not a path below target\/compiled\//);
    expect(fs.existsSync(path.join(proj.root, 'escape.sql'))).toBe(false);
  });

  test('a selection compiles only what it selects; a missing var is an error naming it', async () => {
    const p = parseProject(proj.root, { ...readProjectFiles(proj.root), 'dbt_project.yml': 'name: shop\n' });
    expect(p.errors.map((e) => e.message)).toEqual([expect.stringMatching(/models\/staging\/stg_orders\.sql: .*var\("min_amount"\) is not set and has no default/)]);
    const ok = parseProject(proj.root, readProjectFiles(proj.root));
    const nodes = await compileProject(ok, { database: 'models', lake: { mode: 'relative', cwd: CWD }, resolveSource, select: ['stg_customers'], exclude: ['test_type:generic'] });
    expect(nodes.map((n) => n.name)).toEqual(['stg_customers']);
  });
});

describe('source rendering', () => {
  test('embedded: relative to the cwd, refused outside it; server: absolute, re-rooted; s3: icebergS3', () => {
    expect(renderSource('file:///work/app/.data/warehouse/ns/t', { mode: 'relative', cwd: '/work/app' })).toBe("icebergLocal('.data/warehouse/ns/t')");
    expect(() => renderSource('file:///elsewhere/ns/t', { mode: 'relative', cwd: '/work/app' })).toThrow(/reads files only below its working directory \/work\/app/);
    expect(renderSource('file:///data/wh/ns/t', { mode: 'absolute' })).toBe("icebergLocal('/data/wh/ns/t')");
    expect(renderSource('file:///data/wh/ns/t', { mode: 'absolute', warehouse: 'file:///data/wh', serverWarehouse: '/var/lib/clickhouse/user_files/wh' })).toBe("icebergLocal('/var/lib/clickhouse/user_files/wh/ns/t')");
    expect(renderSource('s3://lake/wh/ns/t', { mode: 'absolute', s3: { endpoint: 'http://minio:9000', accessKeyId: 'k', secretAccessKey: "s'x" } })).toBe("icebergS3('http://minio:9000/lake/wh/ns/t/', 'k', 's\\'x')");
    expect(renderSource('s3://lake/wh/ns/t', { mode: 'relative', cwd: '/', s3: { region: 'eu-west-1' } })).toBe("icebergS3('https://lake.s3.eu-west-1.amazonaws.com/wh/ns/t/')");
  });

  test('s3 keys never reach rendered SQL: embedded through a named collection, a server with its own credentials', () => {
    const s3 = { endpoint: 'http://minio:9000/', region: 'us-east-1', accessKeyId: 'AKID', secretAccessKey: 'SECRET', forcePathStyle: true };
    expect(renderSource('s3://lake/wh/ns/t', chdbLakeAccess('/', s3))).toBe("icebergS3(tributary_lake_s3, url = 'http://minio:9000/lake/wh/ns/t/')");
    expect(renderSource('s3://lake/wh/ns/t', serverLakeAccess({ s3 }))).toBe("icebergS3('http://minio:9000/lake/wh/ns/t/')");
    // no keys (the default credential chain): the plain URL
    expect(renderSource('s3a://lake/wh/ns/t', chdbLakeAccess('/', { endpoint: 'http://minio:9000' }))).toBe("icebergS3('http://minio:9000/lake/wh/ns/t/')");
    expect(chdbLakeAccess('/w')).toEqual({ mode: 'absolute', within: '/w' });
    expect(renderSource('file:///w/ns/t', chdbLakeAccess('/w'))).toBe("icebergLocal('/w/ns/t')");
    expect(() => renderSource('file:///elsewhere/ns/t', chdbLakeAccess('/w'))).toThrow(/reads files only below the warehouse folder \/w/);
  });
});

describe('query box and editor paths', () => {
  test('the query box wraps one SELECT, cut at 1001 rows (the allow-list and limits: sql-guard.test.ts)', () => {
    expect(readOnlyQuery('SELECT * FROM models.x;')).toBe('SELECT * FROM (\nSELECT * FROM models.x\n) LIMIT 1001');
    expect(readOnlyQuery("WITH a AS (SELECT 1) SELECT ';' FROM a -- ; drop")).toContain("SELECT ';' FROM a -- ; drop\n)");
    expect(queryLimits()).toMatch(/^SETTINGS readonly = 2, max_result_rows = 1001, .*result_overflow_mode = 'break', max_execution_time = 30, max_memory_usage = \d+, join_use_nulls = 1, union_default_mode = 'DISTINCT', .*group_by_use_nulls = 1$/);
    expect(() => readOnlyQuery('   ')).toThrow(/empty/);
  });
  test('editor paths stay inside the project', () => {
    expect(checkProjectPath('models/staging/a.sql')).toBe('models/staging/a.sql');
    for (const bad of ['../x.sql', 'models/../../etc/passwd', '/etc/passwd', 'models/a.sh', 'target/compiled/x.sql', 'models//a.sql']) expect(() => checkProjectPath(bad)).toThrow(/not a project file path/);
  });
});
