/**
 * Test-only: a small shop lake (customers, orders) written by Tributary's own
 * lake library, and a model project over it. The warehouse sits below the
 * repository (the cwd) because chdb reads files only below its cwd.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import type pg from 'pg';
import { openLake, type Lake } from '../lake';
import { batchOf } from '../lake/test-helpers';

export const CUSTOMERS = new arrow.Schema([
  new arrow.Field('BRANCH_ID', new arrow.Int32(), false),
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('name', new arrow.Utf8(), true),
  new arrow.Field('insert_at', new arrow.TimestampMicrosecond(), true),
  new arrow.Field('Recorded_updated_at', new arrow.TimestampMicrosecond(), true),
]);
export const ORDERS = new arrow.Schema([
  new arrow.Field('BRANCH_ID', new arrow.Int32(), false),
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('customer_id', new arrow.Int64(), true),
  new arrow.Field('amount', new arrow.Float64(), true),
  new arrow.Field('status', new arrow.Utf8(), true),
  new arrow.Field('insert_at', new arrow.TimestampMicrosecond(), true),
  new arrow.Field('Recorded_updated_at', new arrow.TimestampMicrosecond(), true),
]);

export const T0 = Date.UTC(2025, 0, 1);

export function customerRows(): Record<string, unknown>[] {
  return [1, 2, 3].map((id) => ({ BRANCH_ID: 1, id: BigInt(id), name: `c${id}`, insert_at: T0, Recorded_updated_at: T0 }));
}
export function orderRow(id: number, customer: number, amount: number, status: string, at: number): Record<string, unknown> {
  return { BRANCH_ID: 1, id: BigInt(id), customer_id: BigInt(customer), amount, status, insert_at: at, Recorded_updated_at: at };
}
export function orderRows(): Record<string, unknown>[] {
  return [orderRow(10, 1, 5, 'paid', T0), orderRow(11, 1, 7.5, 'paid', T0), orderRow(12, 2, 3, 'open', T0), orderRow(13, 3, 10, 'paid', T0)];
}

export function makeModelsWarehouse(): { dir: string; uri: string; remove(): void } {
  const dir = path.resolve('lib/models', `.test-warehouse-${crypto.randomBytes(4).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true });
  return { dir, uri: `file://${dir}`, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export async function makeShopLake(pool: pg.Pool, warehouse: string): Promise<Lake> {
  const lake = openLake({ pool, warehouse });
  await lake.createNamespace('shop');
  const c = await lake.createTable('shop.customers', { schema: CUSTOMERS, partitionBy: ['BRANCH_ID'] });
  await c.append([batchOf(CUSTOMERS, customerRows())]);
  const o = await lake.createTable('shop.orders', { schema: ORDERS, partitionBy: ['BRANCH_ID'] });
  await o.append([batchOf(ORDERS, orderRows())]);
  return lake;
}

/** The model project: two staging views, a table joining them, an incremental model, tests. */
export const SHOP_PROJECT: Record<string, string> = {
  'dbt_project.yml': 'name: shop\nvars:\n  min_amount: 0\n',
  'macros/money.sql': '{% macro money(col) %}round({{ col }}, 2){% endmacro %}\n',
  'models/staging/stg_customers.sql': "{{ config(materialized='view', tags=['staging']) }}\nSELECT id AS customer_id, name FROM {{ source('lake', 'shop.customers') }}\n",
  'models/staging/stg_orders.sql': "{{ config(materialized='view', tags=['staging']) }}\nSELECT id AS order_id, customer_id, {{ money('amount') }} AS amount, status, Recorded_updated_at AS updated_at\nFROM {{ source('lake', 'shop.orders') }}\nWHERE amount >= {{ var('min_amount') }}\n",
  'models/marts/customer_orders.sql': "{{ config(materialized='table', order_by='customer_id') }}\nSELECT c.customer_id AS customer_id, c.name AS name, count() AS orders, sum(o.amount) AS total\nFROM {{ ref('stg_customers') }} AS c\nINNER JOIN {{ ref('stg_orders') }} AS o ON o.customer_id = c.customer_id\nGROUP BY c.customer_id, c.name\n",
  'models/marts/orders_inc.sql': "{{ config(materialized='incremental', unique_key='order_id', order_by='order_id') }}\nSELECT order_id, customer_id, amount, status, updated_at FROM {{ ref('stg_orders') }}\n{% if is_incremental() %}WHERE updated_at > (SELECT max(updated_at) FROM {{ this }}){% endif %}\n",
  'models/schema.yml': `version: 2
models:
  - name: stg_customers
    columns:
      - name: customer_id
        tests: [not_null, unique]
  - name: stg_orders
    columns:
      - name: order_id
        tests:
          - unique
          - not_null
      - name: status
        tests:
          - accepted_values:
              values: ['paid', 'open', 'cancelled']
      - name: customer_id
        tests:
          - relationships:
              to: ref('stg_customers')
              field: customer_id
  - name: customer_orders
    columns:
      - name: total
        tests:
          - not_null:
              config:
                severity: warn
                where: "orders > 0"
`,
  'tests/no_negative_totals.sql': "SELECT * FROM {{ ref('customer_orders') }} WHERE total < 0\n",
};

export function writeProject(files: Record<string, string>): { root: string; remove(): void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'models-project-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return { root, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}
