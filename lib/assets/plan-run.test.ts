// planAssetRun on a hand-built graph, table-driven: each node × scope × action
// and the exact jobs it plans (kinds, tables, branches, dbt selectors).
import { describe, expect, it } from 'vitest';
import { buildAssetGraph, type AssetInputs } from './build-graph';
import { planAssetRun } from './plan-run';
import type { AssetJobSpec, AssetRunAction, AssetRunScope } from './types';

const inputs: AssetInputs = {
  namespace: 'etl',
  tables: [{ lakeName: 'customers', source: 'SHOP.CUSTOMERS' }, { lakeName: 'orders', source: 'SHOP.ORDERS' }, { lakeName: 'items', source: 'SHOP.ITEMS' }],
  branches: ['b1', 'b2'],
  lakeTables: [{ ident: 'etl.customers', columns: null, lastUpdated: null, rows: null }, { ident: 'ref.countries', columns: null, lastUpdated: null, rows: null }],
  models: [
    { name: 'stg_customers', kind: 'model', path: 'models/staging/stg_customers.sql', refs: [], sources: ['etl.customers', 'ref.countries'] },
    { name: 'stg_orders', kind: 'model', path: 'models/staging/stg_orders.sql', refs: [], sources: ['etl.orders'] },
    { name: 'customer_orders', kind: 'model', path: 'models/marts/customer_orders.sql', refs: ['stg_customers', 'stg_orders', 'regions'], sources: [] },
    { name: 'regions', kind: 'seed', path: 'seeds/regions.csv', refs: [], sources: [] },
  ],
  tests: [{ name: 'unique_stg_orders_order_id', path: 'models/schema.yml', refs: ['stg_orders'], sources: [] }],
  control: [], dq: [], results: [], flows: [], now: new Date('2026-01-01T00:00:00Z'),
};
const graph = buildAssetGraph(inputs);
const etl = (tables: string[], branch: string[], namespace = 'etl'): AssetJobSpec => ({ kind: 'etl.run', params: { mode: 'INCREMENTAL', tables, branch, namespace } });
const dq = (tables: string[], branch: string[]): AssetJobSpec => ({ kind: 'dq.run', params: { tables, branch, namespace: 'etl' } });
const build = (...select: string[]): AssetJobSpec => ({ kind: 'models.build', params: { select } });

const cases: [string, AssetRunScope, AssetRunAction, AssetJobSpec[]][] = [
  ['source:b1:etl.orders', 'node', 'run', [etl(['orders'], ['b1'])]],
  ['source:b1:etl.orders', 'upstream', 'run', [etl(['orders'], ['b1'])]],
  ['source:b2:etl.orders', 'downstream', 'run', [etl(['orders'], ['b2']), build('stg_orders+')]],
  ['source:b2:etl.orders', 'node', 'dq', [dq(['orders'], ['b2'])]],
  ['lake:etl.orders', 'node', 'run', [etl(['orders'], ['b1', 'b2'])]],
  ['lake:etl.orders', 'upstream', 'run', [etl(['orders'], ['b1', 'b2'])]],
  ['lake:etl.orders', 'downstream', 'run', [etl(['orders'], ['b1', 'b2']), build('stg_orders+')]],
  ['lake:etl.orders', 'node', 'dq', [dq(['orders'], ['b1', 'b2'])]],
  // a lake table nobody loads: only what reads it is rebuilt
  ['lake:ref.countries', 'node', 'run', []],
  ['lake:ref.countries', 'downstream', 'run', [build('stg_customers+')]],
  ['model:stg_orders', 'node', 'run', [build('stg_orders')]],
  ['model:customer_orders', 'upstream', 'run', [etl(['customers', 'orders'], ['b1', 'b2']), build('+customer_orders')]],
  ['model:customer_orders', 'upstream', 'dq', [dq(['customers', 'orders'], ['b1', 'b2'])]],
  ['model:stg_orders', 'downstream', 'run', [build('stg_orders+')]],
  ['model:stg_orders', 'node', 'dq', []],
  ['seed:regions', 'downstream', 'run', [build('regions+')]],
  ['test:unique_stg_orders_order_id', 'upstream', 'run', [etl(['orders'], ['b1', 'b2']), build('+unique_stg_orders_order_id')]],
];

describe('planAssetRun', () => {
  it.each(cases)('%s, scope %s, %s', (node, scope, action, expected) => {
    expect(planAssetRun(graph, node, scope, action)).toEqual(expected);
  });

  it('refuses a node that is not in the graph, naming the field', () => {
    expect(() => planAssetRun(graph, 'model:nope', 'node')).toThrow(expect.objectContaining({ code: 'not_found', field: 'node' }));
  });

  it('groups tables by their branches: a table loaded from one branch only is a request of its own', () => {
    const g = buildAssetGraph({ ...inputs, branches: ['b1'] });
    const g2 = { nodes: [...g.nodes, { ...g.nodes.find((n) => n.id === 'source:b1:etl.items')!, id: 'source:b9:etl.items', branch: 'b9' }], edges: [...g.edges, { from: 'source:b9:etl.items', to: 'lake:etl.items' }] };
    expect(planAssetRun(g2, 'lake:etl.items', 'node')).toEqual([etl(['items'], ['b1', 'b9'])]);
    expect(planAssetRun(g2, 'source:b9:etl.items', 'downstream')).toEqual([etl(['items'], ['b9'])]);
  });
});
