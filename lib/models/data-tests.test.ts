import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildManifest, buildRunResults, testUid } from './artifacts';
import { openChdbTarget } from './chdb-target';
import { executeProject } from './execute';
import { parseProject } from './project';
import type { Target } from './target';
import type { NodeResult } from './types';

// dbt's data tests beyond a column's: tests at model and seed level (a
// column_name expression), and the configs that decide a test's status
// (error_if, warn_if, fail_calc, limit), run on the embedded ClickHouse.

const FILES: Record<string, string> = {
  'dbt_project.yml': 'name: jaffle\n',
  // customers 1 and 3 have two orders each; three orders have no coupon
  'seeds/raw_orders.csv': 'id,customer_id,status,coupon\n1,1,placed,\n2,1,shipped,A\n3,2,placed,\n4,3,returned,B\n5,3,placed,\n6,4,placed,C\n',
  'models/orders.sql': "SELECT id AS order_id, customer_id, status, coupon FROM {{ ref('raw_orders') }}\n",
  'models/schema.yml': `version: 2
models:
  - name: orders
    data_tests:
      # model level: the column is an expression, named into the test as dbt does
      - unique:
          column_name: "toString(customer_id) || '-' || status"
      - not_null:
          column_name: customer_id
          config:
            severity: warn
    columns:
      - name: customer_id
        tests:
          - unique
          - unique:
              name: customer_rows
              fail_calc: sum(n_records)
          - unique:
              name: customer_dups_allowed
              config:
                error_if: ">2"
      - name: coupon
        tests:
          - not_null:
              name: coupon_warns
              config: { error_if: ">5", warn_if: ">2" }
          - not_null:
              name: coupon_fails
              error_if: ">=3"
          - not_null:
              name: coupon_passes
              config: { error_if: ">10", warn_if: ">10" }
          - not_null:
              name: coupon_severity_warn
              config: { severity: warn, error_if: "!=0", warn_if: "> 5" }
          - not_null:
              name: coupon_limited
              config: { limit: 2, store_failures: true }
`,
  'seeds/seeds.yml': `version: 2
seeds:
  - name: raw_orders
    tests:
      - unique:
          column_name: id
`,
};

// dbt's published schemas (test/fixtures/dbt-schemas/): what the configs and a null column_name look like there
const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { uuid: true } });
const schema = (f: string) => ajv.compile(JSON.parse(fs.readFileSync(path.resolve('test/fixtures/dbt-schemas', f), 'utf8')));
const validateManifest = schema('manifest-v12.json');
const validateRunResults = schema('run-results-v6.json');
const errorsOf = (v: { errors?: unknown[] | null }) => (v.errors ?? []).slice(0, 5).map((e) => JSON.stringify(e)).join('\n');

let target: Target; let stateDir: string;
beforeAll(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'models-data-tests-'));
  target = await openChdbTarget({ stateDir, cwd: process.cwd(), database: `t_${crypto.randomBytes(3).toString('hex')}` });
});
afterAll(async () => {
  await target?.close();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

const noLake = async (ident: string): Promise<string> => { throw new Error(`no lake here (${ident})`); };

describe('data tests: model level, error_if / warn_if, fail_calc, limit', () => {
  test('model- and seed-level tests are read, named as dbt names them, and run', async () => {
    const p = parseProject('/p', FILES);
    expect(p.errors).toEqual([]);
    const expr = p.tests.get('unique_orders_toString_customer_id_status')!;
    expect(expr).toMatchObject({ model: 'orders', generic: { type: 'unique', column: "toString(customer_id) || '-' || status", modelLevel: true } });
    expect(p.tests.get('not_null_orders_customer_id')).toMatchObject({ severity: 'warn', generic: { modelLevel: true } });
    expect(p.tests.get('unique_raw_orders_id')).toMatchObject({ model: 'raw_orders', generic: { column: 'id', modelLevel: true } });
    // store_failures is read, and said not to be applied
    expect(p.warnings.map((w) => w.message)).toContainEqual(expect.stringMatching(/models\/schema\.yml: orders\.coupon: not_null: config store_failures is not applied/));

    const s = await executeProject(p, target, { command: 'build', resolveSource: noLake, threads: 2 });
    const r = Object.fromEntries(s.results.map((x) => [x.name, x])) as Record<string, NodeResult>;
    expect(s.results.filter((x) => x.status === 'error').map((x) => `${x.name}: ${x.error}`)).toEqual([]);
    expect(r.unique_orders_toString_customer_id_status).toMatchObject({ status: 'pass', rows: 0 });
    expect(r.unique_orders_toString_customer_id_status.sql).toContain("toString(customer_id) || '-' || status");
    expect(r.not_null_orders_customer_id).toMatchObject({ status: 'pass' });
    expect(r.unique_raw_orders_id).toMatchObject({ status: 'pass' });

    // the manifest: a model-level test has no column_name of its own; its kwargs carry it
    const m = buildManifest(p, { database: target.database, invocationId: 'i', startedAt: new Date().toISOString() }) as { nodes: Record<string, Record<string, unknown>> };
    expect(m.nodes[testUid('jaffle', expr)]).toMatchObject({
      name: 'unique_orders_toString_customer_id_status', column_name: null, attached_node: 'model.jaffle.orders',
      test_metadata: { name: 'unique', kwargs: { column_name: "toString(customer_id) || '-' || status" } },
    });
    expect(validateManifest(m), errorsOf(validateManifest)).toBe(true);
    expect(m.nodes[testUid('jaffle', p.tests.get('unique_raw_orders_id')!)]).toMatchObject({ column_name: null, attached_node: 'seed.jaffle.raw_orders', file_key_name: 'seeds.raw_orders' });
  });

  test('error_if / warn_if give pass, warn or fail; fail_calc and limit set the failures value', async () => {
    const p = parseProject('/p', FILES);
    const s = await executeProject(p, target, { command: 'build', resolveSource: noLake, threads: 2 });
    const r = Object.fromEntries(s.results.map((x) => [x.name, x])) as Record<string, NodeResult>;
    // two customers with two orders each: two failing rows, four records
    expect(r.unique_orders_customer_id).toMatchObject({ status: 'fail', rows: 2 });
    expect(r.customer_rows).toMatchObject({ status: 'fail', rows: 4 });
    // error_if >2 does not hold; warn_if keeps dbt's default, != 0
    expect(r.customer_dups_allowed).toMatchObject({ status: 'warn', rows: 2 });
    // three orders without a coupon
    expect(r.coupon_warns).toMatchObject({ status: 'warn', rows: 3 });
    expect(r.coupon_fails).toMatchObject({ status: 'fail', rows: 3 });
    expect(r.coupon_passes).toMatchObject({ status: 'pass', rows: 3 });
    expect(r.coupon_passes.failingRows).toHaveLength(3);
    expect(r.coupon_severity_warn).toMatchObject({ status: 'pass', rows: 3 });
    expect(r.coupon_limited).toMatchObject({ status: 'fail', rows: 2 });
    expect(r.coupon_limited.failingRows).toHaveLength(2);

    // run_results: dbt's message names the condition that decided; a pass reports 0 failures
    const rr = buildRunResults(p, s.results, 1, { database: target.database, invocationId: 'i', startedAt: new Date().toISOString() }, { command: 'build' }) as { results: { unique_id: string; status: string; message: string | null; failures: number | null }[] };
    expect(validateRunResults(rr), errorsOf(validateRunResults)).toBe(true);
    const byUid = (n: string) => rr.results.find((x) => x.unique_id === testUid('jaffle', p.tests.get(n)!))!;
    expect(byUid('coupon_warns')).toMatchObject({ status: 'warn', message: 'Got 3 results, configured to warn if >2', failures: 3 });
    expect(byUid('coupon_fails')).toMatchObject({ status: 'fail', message: 'Got 3 results, configured to fail if >=3', failures: 3 });
    expect(byUid('coupon_passes')).toMatchObject({ status: 'pass', message: null, failures: 0 });
    // the manifest's test config carries the real values
    const m = buildManifest(p, { database: target.database, invocationId: 'i', startedAt: new Date().toISOString() }) as { nodes: Record<string, { config: Record<string, unknown> }> };
    expect(validateManifest(m), errorsOf(validateManifest)).toBe(true);
    const cfg = (n: string) => m.nodes[testUid('jaffle', p.tests.get(n)!)].config;
    expect(cfg('coupon_warns')).toMatchObject({ error_if: '>5', warn_if: '>2', fail_calc: 'count(*)', limit: null });
    expect(cfg('customer_rows')).toMatchObject({ fail_calc: 'sum(n_records)', error_if: '!= 0', warn_if: '!= 0' });
    expect(cfg('coupon_limited')).toMatchObject({ limit: 2 });
  });

  test('every unknown test of a yml file is one error naming the file, the model and each test', () => {
    const p = parseProject('/p', {
      ...FILES,
      'models/more.yml': `version: 2
models:
  - name: orders
    tests:
      - dbt_utils.expression_is_true:
          expression: "customer_id > 0"
    columns:
      - name: status
        tests:
          - is_known_status
          - not_null
  - name: orders_again
    data_tests:
      - dbt_utils.unique_combination_of_columns:
          combination_of_columns: [customer_id, status]
`,
    });
    const errs = p.errors.filter((e) => e.path === 'models/more.yml');
    expect(errs).toHaveLength(1);
    const msg = errs[0].message;
    expect(msg).toContain('models: models/more.yml: orders: unknown test "dbt_utils.expression_is_true"');
    expect(msg).toContain('models: models/more.yml: orders.status: unknown test "is_known_status"');
    expect(msg).toContain('models: models/more.yml: orders_again: unknown test "dbt_utils.unique_combination_of_columns"');
    expect(msg).toMatch(/custom generic tests \(\{% test %\} blocks in macros\/\) and package tests \(dbt_utils\.…\) are not supported/);
  });

  test('a built-in test at model level without column_name, and a bad condition, are errors', () => {
    const p = parseProject('/p', {
      ...FILES,
      'models/schema.yml': 'version: 2\nmodels:\n  - name: orders\n    tests:\n      - not_null\n      - unique:\n          column_name: order_id\n          config: { warn_if: "many" }\n',
    });
    expect(p.errors.map((e) => e.message)).toEqual([expect.stringMatching(/models\/schema\.yml: orders: not_null at model level needs column_name:.*; models: models\/schema\.yml: orders: unique: warn_if: expected a comparison/)]);
  });
});
