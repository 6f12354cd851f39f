import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { beforeAll, describe, expect, test } from 'vitest';
import { parseEnv } from '../config/env';
import { useShopModels } from '../testing/shop-models';
import { buildManifest, buildRunResults, type ResourceInput } from './artifacts';
import { parseProject } from './project';
import { compileModels, runModelsCommand, type ModelsDeps } from './service';
import { SHOP_PROJECT, writeProject } from './test-project';

// target/manifest.json and target/run_results.json after real runs on the
// embedded ClickHouse, validated against dbt's published JSON schemas
// (manifest v12, run-results v6, vendored in test/fixtures/dbt-schemas/).

const schemaDir = path.resolve('test/fixtures/dbt-schemas');
const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { uuid: true } });
const validateManifest = ajv.compile(JSON.parse(fs.readFileSync(path.join(schemaDir, 'manifest-v12.json'), 'utf8')));
const validateRunResults = ajv.compile(JSON.parse(fs.readFileSync(path.join(schemaDir, 'run-results-v6.json'), 'utf8')));
const errorsOf = (v: { errors?: unknown[] | null }) => (v.errors ?? []).slice(0, 5).map((e) => JSON.stringify(e));

const fx = useShopModels({
    'models/docs.md': '{% docs customer_id %}\nThe customer\'s id in the branch system.\n{% enddocs %}\n\n{% docs orders_overview %}One row per customer with their orders.{% enddocs %}\n',
    'models/marts/marts.yml': `version: 2
models:
  - name: customer_orders
    description: "{{ doc('orders_overview') }}"
    columns:
      - name: customer_id
        description: '{{ doc("customer_id") }}'
        tests: [unique]
      - name: orders
        description: How many orders
      - name: total
        tests:
          - not_null:
              config:
                severity: warn
                where: "orders > 0"
  - name: broken
    columns:
      - name: x
        tests: [not_null]
`,
    // a model is described in one properties entry (dbt fails on two): customer_orders' moves to marts.yml
    'models/schema.yml': SHOP_PROJECT['models/schema.yml'].replace(/ {2}- name: customer_orders\n[\s\S]*$/, ''),
    'models/marts/broken.sql': "SELECT nope AS x FROM {{ ref('stg_orders') }}\n",
    'models/marts/after_broken.sql': "SELECT * FROM {{ ref('broken') }}\n",
    'tests/some_open_orders.sql': "{{ config(severity='warn') }}\nSELECT * FROM {{ ref('stg_orders') }} WHERE status = 'open'\n",
});
let deps: ModelsDeps;
beforeAll(() => {
  deps = { pool: fx.db.pool, env: parseEnv({ DATABASE_URL: fx.db.url, TRIBUTARY_DATA_DIR: fx.wh.dir, TRIBUTARY_WAREHOUSE: fx.wh.uri } as unknown as NodeJS.ProcessEnv) };
});

const read = (name: string) => JSON.parse(fs.readFileSync(path.join(fx.proj.root, 'target', name), 'utf8'));

describe('dbt artifacts', () => {
  test('build writes manifest.json (v12) and run_results.json (v6) that validate against dbt\'s schemas', async () => {
    const s = await runModelsCommand(deps, { command: 'build', project: fx.proj.root, runId: 'run-artifacts', exclude: ['orders_inc'] });
    expect(s.ok).toBe(false); // broken fails, after_broken is skipped
    const m = read('manifest.json');
    expect(validateManifest(m), errorsOf(validateManifest).join('\n')).toBe(true);
    expect(m.metadata.dbt_schema_version).toBe('https://schemas.getdbt.com/dbt/manifest/v12.json');
    // the validator does reject what the schema does not allow
    expect(validateManifest({ ...m, nodes: { ...m.nodes, x: { ...m.nodes['model.shop.stg_orders'], materialised: 'table' } } })).toBe(false);
    expect(m.metadata.project_name).toBe('shop');
    expect(Object.keys(m.nodes).filter((k) => k.startsWith('model.')).sort()).toEqual([
      'model.shop.after_broken', 'model.shop.broken', 'model.shop.customer_orders', 'model.shop.orders_inc', 'model.shop.stg_customers', 'model.shop.stg_orders',
    ]);
    const co = m.nodes['model.shop.customer_orders'];
    expect(co).toMatchObject({
      resource_type: 'model', package_name: 'shop', path: 'marts/customer_orders.sql', original_file_path: 'models/marts/customer_orders.sql',
      fqn: ['shop', 'marts', 'customer_orders'], alias: 'customer_orders', schema: 'models',
      config: { materialized: 'table', order_by: 'customer_id', enabled: true }, compiled: true,
      description: 'One row per customer with their orders.',
      refs: [{ name: 'stg_customers', package: null, version: null }, { name: 'stg_orders', package: null, version: null }],
    });
    expect(co.depends_on.nodes).toEqual(['model.shop.stg_customers', 'model.shop.stg_orders']);
    expect(co.columns.customer_id.description).toBe("The customer's id in the branch system.");
    expect(co.columns.orders.description).toBe('How many orders');
    expect(co.compiled_code).toContain('FROM `models`.`stg_customers` AS c');
    // dbt's layout, and the file is there after a build as after dbt run
    expect(co.compiled_path).toBe('target/compiled/shop/models/marts/customer_orders.sql');
    expect(fs.readFileSync(path.join(fx.proj.root, co.compiled_path), 'utf8')).toBe(co.compiled_code + '\n');
    expect(co.raw_code).toContain("{{ ref('stg_customers') }}");
    expect(m.nodes['model.shop.stg_orders'].depends_on).toEqual({ nodes: ['source.shop.shop.orders'], macros: ['macro.shop.money'] });
    expect(m.nodes['model.shop.stg_orders'].sources).toEqual([['shop', 'orders']]);
    // patch_path: the yml describing a node, as dbt writes it (`<project>://<path>`); none for a node no yml names
    expect(m.nodes['model.shop.stg_orders'].patch_path).toBe('shop://models/schema.yml');
    expect(co.patch_path).toBe('shop://models/marts/marts.yml');
    expect(m.nodes['model.shop.after_broken'].patch_path).toBeNull();
    expect(m.nodes[Object.keys(m.nodes).find((k) => k.startsWith('test.shop.unique_stg_orders_order_id.'))!].patch_path).toBeNull();
    // orders_inc was not run: in the manifest, not compiled
    expect(m.nodes['model.shop.orders_inc']).toMatchObject({ compiled: false, compiled_code: null });
    expect(m.sources['source.shop.shop.orders']).toMatchObject({ resource_type: 'source', source_name: 'shop', name: 'orders', identifier: 'orders' });
    expect(m.macros['macro.shop.money']).toMatchObject({ path: 'macros/money.sql', macro_sql: '{% macro money(col) %}round({{ col }}, 2){% endmacro %}', arguments: [{ name: 'col', type: null, description: '' }] });
    expect(m.docs['doc.shop.customer_id']).toMatchObject({ resource_type: 'doc', original_file_path: 'models/docs.md', block_contents: "The customer's id in the branch system." });

    // tests: dbt's names, unique_ids and metadata
    const rel = Object.keys(m.nodes).find((k) => k.startsWith('test.shop.relationships_stg_orders_customer_id__customer_id__ref_stg_customers_.'))!;
    expect(rel).toMatch(/\.[0-9a-f]{10}$/);
    expect(m.nodes[rel]).toMatchObject({
      resource_type: 'test', name: 'relationships_stg_orders_customer_id__customer_id__ref_stg_customers_', column_name: 'customer_id',
      test_metadata: { name: 'relationships', kwargs: { column_name: 'customer_id', to: "ref('stg_customers')", field: 'customer_id' }, namespace: null },
      attached_node: 'model.shop.stg_orders', original_file_path: 'models/schema.yml',
    });
    // 64 characters or more: the alias and compiled file take dbt's short name
    expect(m.nodes[rel].alias).toBe(`relationships_stg_orders_${crypto.createHash('md5').update(m.nodes[rel].name).digest('hex')}`);
    expect(m.nodes[rel].path).toBe(`${m.nodes[rel].alias}.sql`);
    expect(m.nodes[rel].raw_code).toBe(`{{ test_relationships(**_dbt_generic_test_kwargs) }}{{ config(alias="${m.nodes[rel].alias}") }}`);
    expect(m.nodes[rel].depends_on).toEqual({ nodes: ['model.shop.stg_customers', 'model.shop.stg_orders'], macros: ['macro.dbt.test_relationships', 'macro.dbt.get_where_subquery'] });
    expect(m.macros['macro.dbt.test_relationships']).toMatchObject({ package_name: 'dbt' });
    // dbt's unique_id of jaffle_shop's best-known test has the same form: test.<project>.<name>.<10 hex of md5(name + metadata)>
    expect(Object.keys(m.nodes)).toContain('test.shop.unique_stg_orders_order_id.' + Object.keys(m.nodes).find((k) => k.startsWith('test.shop.unique_stg_orders_order_id.'))!.split('.').pop());
    expect(m.nodes['test.shop.some_open_orders']).toMatchObject({ resource_type: 'test', path: 'some_open_orders.sql', depends_on: { nodes: ['model.shop.stg_orders'] } });

    expect(m.parent_map['model.shop.customer_orders']).toEqual(['model.shop.stg_customers', 'model.shop.stg_orders']);
    expect(m.child_map['source.shop.shop.orders']).toEqual(['model.shop.stg_orders']);
    expect(m.child_map['model.shop.stg_orders']).toContain(rel);
    expect(Object.keys(m.child_map).sort()).toEqual(Object.keys(m.parent_map).sort());

    const rr = read('run_results.json');
    expect(validateRunResults(rr), errorsOf(validateRunResults).join('\n')).toBe(true);
    expect(rr.metadata.dbt_schema_version).toBe('https://schemas.getdbt.com/dbt/run-results/v6.json');
    expect(rr.metadata.invocation_id).toBe('run-artifacts');
    expect(rr.args).toMatchObject({ which: 'build', exclude: ['orders_inc'] });
    const by = Object.fromEntries(rr.results.map((r: { unique_id: string }) => [r.unique_id, r]));
    expect(Object.keys(by)).toEqual(expect.arrayContaining(Object.keys(m.nodes).filter((k) => k !== 'model.shop.orders_inc')));
    expect(by['model.shop.customer_orders']).toMatchObject({ status: 'success', failures: null, compiled: true, thread_id: expect.stringMatching(/^Thread-\d+$/) });
    expect(by['model.shop.customer_orders'].compiled_code).toBe(co.compiled_code);
    // relation_name as dbt gives it: a model's relation, in the adapter's quoting (also when it failed or was skipped); none for a test
    expect(by['model.shop.customer_orders'].relation_name).toBe('`models`.`customer_orders`');
    expect(by['model.shop.customer_orders'].relation_name).toBe(co.relation_name);
    expect(by['model.shop.after_broken'].relation_name).toBe('`models`.`after_broken`');
    expect(by['test.shop.some_open_orders'].relation_name).toBeNull();
    expect(by['model.shop.customer_orders'].timing.map((t: { name: string }) => t.name)).toEqual(['compile', 'execute']);
    expect(by['model.shop.broken']).toMatchObject({ status: 'error', message: expect.stringContaining('nope') });
    expect(by['model.shop.after_broken']).toMatchObject({ status: 'skipped', timing: [] });
    expect(by['test.shop.some_open_orders']).toMatchObject({ status: 'warn', failures: 1, message: 'Got 1 result, configured to warn if != 0' });
    expect(by[rel]).toMatchObject({ status: 'pass', failures: 0 });
    expect(rr.elapsed_time).toBeGreaterThan(0);
  });

  test('compile writes a manifest with the compiled SQL of the selection only', async () => {
    const r = await compileModels(deps, { project: fx.proj.root, select: ['stg_customers'] });
    expect(r.written).toContain('target/manifest.json');
    const m = read('manifest.json');
    expect(validateManifest(m), errorsOf(validateManifest).join('\n')).toBe(true);
    expect(m.nodes['model.shop.stg_customers']).toMatchObject({ compiled: true, compiled_path: 'target/compiled/shop/models/staging/stg_customers.sql' });
    expect(fs.readFileSync(path.join(fx.proj.root, m.nodes['model.shop.stg_customers'].compiled_path), 'utf8')).toBe(m.nodes['model.shop.stg_customers'].compiled_code + '\n');
    expect(m.nodes['model.shop.stg_customers'].compiled_code).toMatch(/^SELECT id AS customer_id, name FROM icebergLocal\(/);
    expect(m.nodes['model.shop.customer_orders'].compiled).toBe(false);
    expect(fs.existsSync(path.join(fx.proj.root, r.written.find((w) => w.includes('unique_stg_customers_customer_id'))!))).toBe(true);
  });

  test('a node of another resource type (a seed) fits in: validated, and a ref() to it is a dependency', () => {
    const p = parseProject('/tmp/p', { 'dbt_project.yml': 'name: jaffle\n', 'models/customers.sql': "SELECT id FROM {{ ref('raw_customers') }}\n" });
    const seed: ResourceInput = {
      resourceType: 'seed', name: 'raw_customers', originalFilePath: 'seeds/raw_customers.csv', uniqueId: 'seed.jaffle.raw_customers', fqn: ['jaffle', 'raw_customers'],
      path: 'raw_customers.csv', alias: 'raw_customers', raw: '', config: { enabled: true, materialized: 'seed', delimiter: ',', quote_columns: null, column_types: {} },
      tags: [], dependsOn: { nodes: [], macros: [] }, relationName: '`models`.`raw_customers`',
    };
    const m = buildManifest(p, { database: 'models', invocationId: 'i', startedAt: new Date().toISOString() }, { extra: [seed] }) as Record<string, Record<string, unknown>>;
    expect(validateManifest(m), errorsOf(validateManifest).join('\n')).toBe(true);
    expect(m.nodes['seed.jaffle.raw_customers']).toMatchObject({ resource_type: 'seed', checksum: { name: 'sha256' } });
    expect(m.parent_map['model.jaffle.customers']).toEqual(['seed.jaffle.raw_customers']);
    expect(m.child_map['seed.jaffle.raw_customers']).toEqual(['model.jaffle.customers']);
    const rr = buildRunResults(p, [{ name: 'raw_customers', kind: 'seed' as 'model', status: 'success', rows: 3, durationMs: 5, startedAt: new Date().toISOString(), thread: 2 }], 10, { database: 'models', invocationId: 'i', startedAt: new Date().toISOString() }, { command: 'build' });
    expect(validateRunResults(rr), errorsOf(validateRunResults).join('\n')).toBe(true);
    expect((rr.results as { unique_id: string; thread_id: string }[])[0]).toMatchObject({ unique_id: 'seed.jaffle.raw_customers', thread_id: 'Thread-2' });
  });

  test('a project\'s seeds are manifest nodes (config, columns, tests attached) and seed / build results are in run_results', async () => {
    const sp = writeProject({
      'dbt_project.yml': 'name: jaffle\nseeds:\n  jaffle:\n    +tags: [raw]\n    old_codes:\n      +enabled: false\n',
      'seeds/raw_customers.csv': 'id,first_name\n1,Ann\n2,Bob\n3,Cy\n',
      'seeds/old_codes.csv': 'code\nA\n',
      'seeds/seeds.yml': `version: 2
seeds:
  - name: raw_customers
    description: "{{ doc('raw_customers') }}"
    config:
      column_types: {id: integer}
    columns:
      - name: id
        description: The customer's id
        tests: [unique, not_null]
  - name: old_codes
    columns:
      - name: code
        tests: [not_null]
`,
      'models/docs.md': '{% docs raw_customers %}Customers as the shop exported them.{% enddocs %}\n',
      'models/customers.sql': "{{ config(materialized='table', order_by='customer_id') }}\nSELECT id AS customer_id, first_name FROM {{ ref('raw_customers') }}\n",
    });
    try {
      const seeded = await runModelsCommand(deps, { command: 'seed', project: sp.root, runId: 'run-seed' });
      expect(seeded.ok).toBe(true);
      const readSp = (name: string) => JSON.parse(fs.readFileSync(path.join(sp.root, 'target', name), 'utf8'));
      let rr = readSp('run_results.json');
      expect(validateRunResults(rr), errorsOf(validateRunResults).join('\n')).toBe(true);
      expect(rr.args).toMatchObject({ which: 'seed' });
      expect(rr.results).toEqual([expect.objectContaining({ unique_id: 'seed.jaffle.raw_customers', status: 'success', message: 'INSERT 3', compiled_code: null, adapter_response: expect.objectContaining({ code: 'INSERT', rows_affected: 3 }) })]);

      const s = await runModelsCommand(deps, { command: 'build', project: sp.root, runId: 'run-seed-build' });
      expect(s.ok).toBe(true);
      const m = readSp('manifest.json');
      expect(validateManifest(m), errorsOf(validateManifest).join('\n')).toBe(true);
      expect(m.nodes['seed.jaffle.raw_customers']).toMatchObject({
        resource_type: 'seed', name: 'raw_customers', package_name: 'jaffle', path: 'raw_customers.csv', original_file_path: 'seeds/raw_customers.csv',
        fqn: ['jaffle', 'raw_customers'], alias: 'raw_customers', schema: 'models', relation_name: expect.stringContaining('`raw_customers`'),
        checksum: { name: 'sha256', checksum: crypto.createHash('sha256').update('id,first_name\n1,Ann\n2,Bob\n3,Cy\n').digest('hex') },
        config: { materialized: 'seed', enabled: true, tags: ['raw'], column_types: { id: 'integer' }, delimiter: ',', quote_columns: true },
        tags: ['raw'], description: 'Customers as the shop exported them.', patch_path: 'jaffle://seeds/seeds.yml',
        // dbt's seed parser reads no contents: raw_code is empty, the checksum is of the file
        raw_code: '',
        columns: { id: expect.objectContaining({ name: 'id', description: "The customer's id" }) },
      });
      // a disabled seed, and the test on it, are listed under disabled
      expect(m.nodes['seed.jaffle.old_codes']).toBeUndefined();
      expect(m.disabled['seed.jaffle.old_codes']).toEqual([expect.objectContaining({ resource_type: 'seed' })]);
      expect(Object.keys(m.disabled).some((k) => k.startsWith('test.jaffle.not_null_old_codes_code.'))).toBe(true);
      expect(m.parent_map['model.jaffle.customers']).toEqual(['seed.jaffle.raw_customers']);
      const uq = Object.keys(m.nodes).find((k) => k.startsWith('test.jaffle.unique_raw_customers_id.'))!;
      expect(m.nodes[uq]).toMatchObject({ attached_node: 'seed.jaffle.raw_customers', file_key_name: 'seeds.raw_customers', depends_on: { nodes: ['seed.jaffle.raw_customers'] } });
      expect(m.child_map['seed.jaffle.raw_customers']).toHaveLength(3);
      expect(m.child_map['seed.jaffle.raw_customers']).toEqual(expect.arrayContaining(['model.jaffle.customers', uq, expect.stringMatching(/^test\.jaffle\.not_null_raw_customers_id\./)]));

      rr = readSp('run_results.json');
      expect(validateRunResults(rr), errorsOf(validateRunResults).join('\n')).toBe(true);
      const by = Object.fromEntries(rr.results.map((r: { unique_id: string }) => [r.unique_id, r]));
      // a seed is no compiled node in dbt: no compiled code, no relation_name in its result
      expect(by['seed.jaffle.raw_customers']).toMatchObject({ status: 'success', message: 'INSERT 3', relation_name: null });
      expect(by['model.jaffle.customers']).toMatchObject({ relation_name: '`models`.`customers`' });
      expect(by['model.jaffle.customers']).toMatchObject({ status: 'success' });
      expect(by[uq]).toMatchObject({ status: 'pass', failures: 0 });
      expect(Object.keys(by).sort()).toEqual(Object.keys(m.nodes).sort());
    } finally { sp.remove(); }
  });
});
