import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildGraph } from './graph';
import { parseProject } from './project';
import { readProjectFiles } from './project-dir';
import { selectNodes } from './selector';

// dbt's selection semantics (core/dbt/graph: selector_spec.py, selector_methods.py,
// selector.py, cli.py) on test/fixtures/dbt-jaffle: project jaffle_shop, models in
// models/staging and models/marts, seeds, generic tests in two schema.yml, a singular test.

const FIXTURE = path.resolve('test/fixtures/dbt-jaffle');

function selector(files = readProjectFiles(FIXTURE)) {
  const p = parseProject(FIXTURE, files);
  expect(p.errors).toEqual([]);
  const g = buildGraph(p);
  return (select: string[], exclude: string[] = []) => {
    const warnings: string[] = [];
    const ids = [...selectNodes(p, g, select, exclude, (m) => warnings.push(m))].sort();
    return { ids, warnings, nodes: ids.filter((x) => !x.startsWith('test:')), tests: ids.filter((x) => x.startsWith('test:')) };
  };
}
const sel = selector();

const STAGING = ['model:stg_customers', 'model:stg_orders', 'model:stg_payments'];
const MARTS = ['model:customers', 'model:orders', 'model:payments_inc'];
const SEEDS = ['seed:raw_customers', 'seed:raw_orders', 'seed:raw_payments'];
const STAGING_TESTS = [
  'test:accepted_values_stg_orders_status__placed__shipped__completed__return_pending__returned',
  'test:accepted_values_stg_payments_payment_method__credit_card__coupon__bank_transfer__gift_card',
  'test:not_null_stg_customers_customer_id', 'test:not_null_stg_orders_order_id', 'test:not_null_stg_payments_payment_id',
  'test:unique_stg_customers_customer_id', 'test:unique_stg_orders_order_id', 'test:unique_stg_payments_payment_id',
];
const ALL_TESTS = [
  'test:accepted_values_orders_status__placed__shipped__completed__return_pending__returned', STAGING_TESTS[0], STAGING_TESTS[1],
  'test:assert_total_payment_amount_is_positive', 'test:not_null_customers_customer_id', 'test:not_null_orders_amount',
  'test:not_null_orders_customer_id', 'test:not_null_orders_order_id', ...STAGING_TESTS.slice(2, 5),
  'test:relationships_orders_customer_id__customer_id__ref_customers_', 'test:unique_customers_customer_id', 'test:unique_orders_order_id',
  ...STAGING_TESTS.slice(5),
];
const EVERYTHING = [...MARTS, ...STAGING, ...SEEDS, ...ALL_TESTS].sort();

describe('a selector without a method: path, file or fqn, as dbt chooses', () => {
  test('fqn: the project name, its folders, dotted prefixes and wildcards from the first wildcard part', () => {
    expect(sel(['jaffle_shop']).ids).toEqual(EVERYTHING);
    expect(sel(['jaffle_shop.staging']).ids).toEqual([...STAGING, ...STAGING_TESTS]);
    expect(sel(['jaffle_shop.staging.*']).ids).toEqual([...STAGING, ...STAGING_TESTS]);
    // the fqn is tried without the project name too: a folder alone
    expect(sel(['staging']).nodes).toEqual(STAGING);
    expect(sel(['jaffle_shop.marts.orders']).nodes).toEqual(['model:orders']);
    expect(sel(['jaffle_shop.*.stg_orders']).nodes).toEqual(['model:stg_orders']);
    expect(sel(['*.stg_*']).nodes).toEqual(STAGING);
    expect(sel(['*']).ids).toEqual(EVERYTHING);
    expect(sel(['marts.orders.x']).ids).toEqual([]);
  });

  test('a bare stg_* matches nothing here, as in dbt: it is fnmatched against the whole fqn (staging.stg_orders), not the name', () => {
    expect(sel(['stg_*'])).toMatchObject({ ids: [], warnings: ["The selection criterion 'stg_*' does not match any enabled nodes"] });
    // at the top of models/ the fqn is [project, name]: there it selects by name
    const top = selector({ ...readProjectFiles(FIXTURE), 'models/stg_extra.sql': "select * from {{ ref('stg_orders') }}" });
    expect(top(['stg_*']).nodes).toEqual(['model:stg_extra']);
  });

  test('a value with a / is a path; one ending in .sql, .csv or .py a file name', () => {
    expect(sel(['models/staging']).ids).toEqual([...STAGING, ...STAGING_TESTS]);
    expect(sel(['models/staging/stg_orders.sql']).nodes).toEqual(['model:stg_orders']);
    expect(sel(['customers.sql']).ids).toEqual(['model:customers', 'test:not_null_customers_customer_id', 'test:relationships_orders_customer_id__customer_id__ref_customers_', 'test:unique_customers_customer_id']);
    expect(sel(['raw_orders.csv']).nodes).toEqual(['seed:raw_orders']);
    expect(sel(['assert_total_payment_amount_is_positive.sql']).ids).toEqual(['test:assert_total_payment_amount_is_positive']);
  });
});

describe('wildcards: fnmatch wherever a value takes them', () => {
  test('?, [abc], [a-z] and [!x] in fqn, tag, file and path values', () => {
    expect(sel(['*.stg_[co]*']).nodes).toEqual(['model:stg_customers', 'model:stg_orders']);
    expect(sel(['*.stg_?????s']).nodes).toEqual(['model:stg_orders']);
    expect(sel(['jaffle_shop.marts.[a-d]*']).nodes).toEqual(['model:customers']);
    expect(sel(['*.stg_[!c]*']).nodes).toEqual(['model:stg_orders', 'model:stg_payments']);
    expect(sel(['tag:st?g*']).nodes).toEqual(STAGING);
    expect(sel(['file:stg_[op]*.sql']).nodes).toEqual(['model:stg_orders', 'model:stg_payments']);
    expect(sel(['path:models/*/stg_?????s.sql']).nodes).toEqual(['model:stg_orders']);
    expect(sel(['path:models/**/*.sql'], ['resource_type:test']).nodes).toEqual([...MARTS, ...STAGING].sort());
  });
});

describe('the @ operator', () => {
  test('@name: the node, its descendants, and every ancestor of those', () => {
    // customers's only descendant is the relationships test, which also reads orders
    expect(sel(['@customers']).nodes).toEqual(['model:customers', 'model:orders', ...STAGING, ...SEEDS].sort());
    expect(sel(['customers+']).nodes).toEqual(['model:customers']);
    expect(sel(['@stg_customers']).nodes).toEqual(['model:customers', 'model:orders', ...STAGING, ...SEEDS].sort());
    expect(sel(['@orders']).ids).toEqual(['model:customers', 'model:orders', ...STAGING, ...SEEDS,
      ...ALL_TESTS.filter((t) => /orders|customers|amount_is_positive/.test(t) && !/stg_/.test(t)), ...STAGING_TESTS].sort());
  });
  test('@ with a + suffix is refused, as in dbt', () => {
    expect(() => sel(['@orders+'])).toThrow('models: selector "@orders+" is invalid: the "@" prefix and the "+" suffix are incompatible');
  });
});

describe('methods', () => {
  test('fqn:, file: (by name or stem), package:, test_name:', () => {
    expect(sel(['fqn:jaffle_shop.staging']).nodes).toEqual(STAGING);
    expect(sel(['file:orders']).nodes).toEqual(['model:orders']);
    expect(sel(['file:orders.sql']).nodes).toEqual(['model:orders']);
    expect(sel(['file:schema.yml']).tests).toEqual(ALL_TESTS.filter((t) => !t.includes('assert_total')));
    expect(sel(['package:jaffle_shop']).ids).toEqual(EVERYTHING);
    expect(sel(['package:this']).ids).toEqual(EVERYTHING);
    expect(sel(['package:dbt_utils'])).toMatchObject({ ids: [], warnings: ["The selection criterion 'package:dbt_utils' does not match any enabled nodes"] });
    expect(sel(['test_name:unique']).ids).toEqual(ALL_TESTS.filter((t) => t.startsWith('test:unique_')));
    expect(sel(['test_name:accepted_values']).ids).toEqual(ALL_TESTS.filter((t) => t.startsWith('test:accepted_values_')));
    expect(sel(['test_name:not_*,path:models/staging']).ids).toEqual(STAGING_TESTS.filter((t) => t.startsWith('test:not_null_')));
  });

  test('config.<key>: any config key, list items, booleans and severity in any case', () => {
    expect(sel(['config.unique_key:payment_id']).nodes).toEqual(['model:payments_inc']);
    expect(sel(['config.materialized:view']).nodes).toEqual(STAGING);
    expect(sel(['config.materialized:incremental']).nodes).toEqual(['model:payments_inc']);
    expect(sel(['config.tags:staging']).nodes).toEqual(STAGING);
    expect(sel(['config.tags:raw']).nodes).toEqual(SEEDS);
    expect(sel(['config.order_by:payment_id']).nodes).toEqual(['model:payments_inc']);
    expect(sel(['config.column_types.status:varchar(32)']).nodes).toEqual(['seed:raw_orders']);
    expect(sel(['config.severity:ERROR', 'config.severity:error']).tests).toEqual(ALL_TESTS);
    expect(sel(['config.where:*']).ids).toEqual([]);
    expect(sel(['config.enabled:true']).ids).toEqual(EVERYTHING);
    expect(sel(['config.materialized:test']).ids).toEqual(ALL_TESTS);
  });

  test('source: a lake table read by source() is a node while selecting: source:x+ reaches what reads it', () => {
    const files = {
      'dbt_project.yml': 'name: shop\n',
      'models/staging/stg_orders.sql': "select * from {{ source('lake', 'sales.orders') }}",
      'models/staging/stg_items.sql': "select * from {{ source('sales', 'items') }}",
      'models/staging/stg_people.sql': "select * from {{ source('hr', 'people') }}",
      'models/marts/order_totals.sql': "select * from {{ ref('stg_orders') }} join {{ ref('stg_items') }} using (order_id)",
    };
    const p = parseProject('/p', files);
    expect(p.errors).toEqual([]);
    const g = buildGraph(p);
    const s = (x: string) => { const w: string[] = []; return { ids: [...selectNodes(p, g, [x], [], (m) => w.push(m))].sort(), w }; };
    expect(s('source:sales.orders+').ids).toEqual(['model:order_totals', 'model:stg_orders']);
    expect(s('source:lake.sales.orders+1').ids).toEqual(['model:stg_orders']);
    expect(s('source:shop.sales.orders+1').ids).toEqual(['model:stg_orders']);
    expect(s('source:sales+1').ids).toEqual(['model:stg_items', 'model:stg_orders']);
    expect(s('source:*.people+').ids).toEqual(['model:stg_people']);
    // the lake table itself has nothing to run, as a dbt source: selected, so no warning, but nothing comes out
    expect(s('source:sales.orders')).toEqual({ ids: [], w: [] });
    expect(s('source:sales.nope+')).toEqual({ ids: [], w: ["The selection criterion 'source:sales.nope+' does not match any enabled nodes"] });
    expect(s('resource_type:source+1').ids).toEqual(['model:stg_items', 'model:stg_orders', 'model:stg_people']);
    expect(s('+order_totals').ids).toEqual(['model:order_totals', 'model:stg_items', 'model:stg_orders']);
  });

  test("dbt's methods for what Tributary does not have are refused by name; an unknown one too", () => {
    for (const m of ['state', 'result', 'exposure', 'metric', 'semantic_model', 'saved_query', 'unit_test', 'version', 'access', 'group', 'source_status']) {
      expect(() => sel([`${m}:x`])).toThrow(`models: selector method "${m}" (in "${m}:x") is not supported`);
    }
    expect(() => sel(['state:modified+'])).toThrow(/known: fqn, tag, path, file, package, config.<key>, test_name, test_type, resource_type, source\)$/);
    expect(() => sel(['bogus:x'])).toThrow('models: unknown selector method "bogus" in "bogus:x" (known: fqn, tag, path, file, package, config.<key>, test_name, test_type, resource_type, source)');
    expect(() => sel(['resource_type:modle'])).toThrow(/resource_type must be one of model, analysis, test/);
    expect(sel(['resource_type:snapshot']).ids).toEqual([]);
  });
});

describe('warnings, as dbt gives them', () => {
  test('each criterion (of --select and --exclude) selecting no enabled node is named; the others still select', () => {
    expect(sel(['nope', 'orders', 'tag:nightly,staging'], ['also_nope', 'tag:staging'])).toMatchObject({
      nodes: ['model:orders'],
      warnings: [
        "The selection criterion 'nope' does not match any enabled nodes",
        "The selection criterion 'tag:nightly,staging' does not match any enabled nodes",
        "The selection criterion 'also_nope' does not match any enabled nodes",
      ],
    });
    expect(sel([]).warnings).toEqual([]);
  });
  test('a criterion naming only a disabled model warns too', () => {
    const off = selector({ ...readProjectFiles(FIXTURE), 'models/marts/payments_inc.sql': '{{ config(enabled=false) }}select 1 as payment_id' });
    expect(off(['payments_inc'])).toEqual({ ids: [], nodes: [], tests: [], warnings: ["The selection criterion 'payments_inc' does not match any enabled nodes"] });
  });
});
