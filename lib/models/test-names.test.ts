import { describe, expect, test } from 'vitest';
import { parseSchemaYml } from './schema-yml';
import { pyRepr, synthesizeTestNames, testHash } from './test-names';

// dbt's generic test names and unique_id hashes, checked against the values
// dbt writes for its jaffle_shop project (manifest.json: names, aliases,
// compiled file names and unique_ids).

const meta = (name: string, kwargs: Record<string, unknown>, model: string) => ({ namespace: null, name, kwargs: { ...kwargs, model: `{{ get_where_subquery(ref('${model}')) }}` } });

describe('dbt test names', () => {
  test('jaffle_shop\'s names: values and ref() in the name, 64+ characters hashed in the alias only', () => {
    expect(synthesizeTestNames('accepted_values', 'orders', { column_name: 'status', values: ['placed', 'shipped', 'completed', 'return_pending', 'returned'] })).toEqual({
      full: 'accepted_values_orders_status__placed__shipped__completed__return_pending__returned',
      short: 'accepted_values_orders_1ce6ab157c285f7cd2ac656013faf758',
    });
    expect(synthesizeTestNames('relationships', 'orders', { column_name: 'customer_id', to: "ref('customers')", field: 'customer_id' })).toEqual({
      full: 'relationships_orders_customer_id__customer_id__ref_customers_', short: 'relationships_orders_customer_id__customer_id__ref_customers_',
    });
    expect(synthesizeTestNames('unique', 'customers', { column_name: 'customer_id' }).full).toBe('unique_customers_customer_id');
    // a prefix of 30 characters at most before the hash
    expect(synthesizeTestNames('accepted_values', 'a_very_long_model_name_indeed', { column_name: 'c', values: ['x'.repeat(40)] }).short).toMatch(/^accepted_values_a_very_long_mo_[0-9a-f]{32}$/);
    // booleans and numbers as Python prints them; other characters become one _
    expect(synthesizeTestNames('accepted_values', 'm', { column_name: 'n', values: [1, 2], quote: false }).full).toBe('accepted_values_m_n__False__1__2');
    expect(synthesizeTestNames('accepted_values', 'm', { column_name: 'n', values: ['a b', 'c-d!'] }).full).toBe('accepted_values_m_n__a_b__c_d_');
  });

  test('unique_id hashes equal dbt\'s for jaffle_shop', () => {
    expect(testHash('unique_customers_customer_id', meta('unique', { column_name: 'customer_id' }, 'customers'))).toBe('c5af1ff4b1');
    expect(testHash('relationships_orders_customer_id__customer_id__ref_customers_', meta('relationships', { column_name: 'customer_id', to: "ref('customers')", field: 'customer_id' }, 'orders'))).toBe('c6ec7f58f2');
    expect(testHash('accepted_values_orders_status__placed__shipped__completed__return_pending__returned',
      meta('accepted_values', { column_name: 'status', values: ['placed', 'shipped', 'completed', 'return_pending', 'returned'] }, 'orders'))).toBe('be6b5b5ec3');
    expect(pyRepr({ a: "it's", b: [1, 'x'] })).toBe(`{'a': "it's", 'b': [1, 'x']}`);
  });

  test('schema.yml tests take those names; configs stay out of them; name: overrides', () => {
    const y = parseSchemaYml(`models:
  - name: orders
    columns:
      - name: status
        tests:
          - accepted_values:
              values: [placed, shipped, completed, return_pending, returned]
              severity: warn
              config: { where: "1 = 1" }
      - name: customer_id
        data_tests:
          - relationships: { arguments: { to: "ref('customers')", field: customer_id } }
          - not_null: { name: orders_have_customers }
`, 'models/schema.yml');
    const t = y.models[0].tests;
    expect(t.map((x) => [x.name, x.alias])).toEqual([
      ['accepted_values_orders_status__placed__shipped__completed__return_pending__returned', 'accepted_values_orders_1ce6ab157c285f7cd2ac656013faf758'],
      ['relationships_orders_customer_id__customer_id__ref_customers_', 'relationships_orders_customer_id__customer_id__ref_customers_'],
      ['orders_have_customers', 'orders_have_customers'],
    ]);
    expect(t[0]).toMatchObject({ severity: 'warn', where: '1 = 1' });
    expect(t[1].generic).toMatchObject({ to: 'customers', field: 'customer_id' });
  });
});
