// buildAssetGraph on hand-written inputs (pure): seeds feeding models through
// ref(), a lake table's load aggregated over its branches, DQ per branch,
// problems for a source() naming no lake table, flows matched by their steps.
import { describe, expect, it } from 'vitest';
import { buildAssetGraph, type AssetInputs } from './build-graph';

const NOW = new Date('2026-01-02T00:00:00Z');
const h = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);
const base: AssetInputs = {
  namespace: 'etl',
  tables: [{ lakeName: 'orders', source: 'SHOP.ORDERS' }],
  branches: ['b1', 'b2'],
  lakeTables: [{ ident: 'etl.orders', columns: [{ name: 'id', type: 'long' }], lastUpdated: h(1).toISOString(), rows: 42 }],
  models: [
    { name: 'regions', kind: 'seed', path: 'seeds/regions.csv', refs: [], sources: [] },
    { name: 'orders_by_region', kind: 'model', path: 'models/marts/orders_by_region.sql', refs: ['regions'], sources: ['etl.orders', 'etl.missing'] },
  ],
  tests: [{ name: 'not_null_regions_code', path: 'seeds/schema.yml', refs: ['regions'], sources: [] }],
  control: [
    { namespace: 'etl', table: 'orders', branch: 'b1', status: 'SUCCESS', rows: 10, finishedAt: h(3), lastSuccessAt: h(3), error: null },
    { namespace: 'etl', table: 'orders', branch: 'b2', status: 'FAILED', rows: 0, finishedAt: h(2), lastSuccessAt: h(30), error: 'timeout' },
    // another namespace's load of the same name is not this table's
    { namespace: 'probe', table: 'orders', branch: 'b1', status: 'FAILED', rows: 0, finishedAt: h(0), lastSuccessAt: null, error: 'x' },
  ],
  dq: [{ table: 'orders', branch: 'b2', status: 'MISMATCH', checkedAt: h(5), delta: 3, mismatches: 3, error: null }],
  results: [{ kind: 'seed', name: 'regions', status: 'success', rows: 5, at: h(1), error: null }],
  flows: [
    { id: 'f1', name: 'b1-only', steps: [{ kind: 'etl.run', params: { mode: 'INCREMENTAL', branch: 'b1', tables: 'orders' } }] },
    { id: 'f2', name: 'regions-down', steps: [{ kind: 'models.build', params: { select: 'regions+' } }] },
    { id: 'f3', name: 'other-ns', steps: [{ kind: 'dq.run', params: { namespace: 'probe' } }] },
  ],
  now: NOW,
};

describe('buildAssetGraph', () => {
  const g = buildAssetGraph(base);
  const node = (id: string) => g.nodes.find((n) => n.id === id)!;

  it('links seeds to what refs them and tests to what they test; a source() naming no lake table is a problem', () => {
    expect(g.edges).toEqual([
      { from: 'lake:etl.orders', to: 'model:orders_by_region' },
      { from: 'seed:regions', to: 'model:orders_by_region' },
      { from: 'seed:regions', to: 'test:not_null_regions_code' },
      { from: 'source:b1:etl.orders', to: 'lake:etl.orders' },
      { from: 'source:b2:etl.orders', to: 'lake:etl.orders' },
    ]);
    expect(node('seed:regions')).toMatchObject({ kind: 'seed', group: 'seeds', last: { status: 'success', rows: 5, ageSeconds: 3600 } });
    expect(node('test:not_null_regions_code').group).toBe('seeds');
    expect(g.problems).toEqual(["model:orders_by_region reads source('lake', 'etl.missing'), which is no lake table"]);
  });

  it("gives a lake table its newest load, its worst branch's status, the lake's rows and the age of its newest success", () => {
    expect(node('lake:etl.orders').last).toEqual({ at: h(2).toISOString(), rows: 42, status: 'FAILED', ageSeconds: 3 * 3600, error: 'timeout' });
    expect(node('source:b1:etl.orders').last).toEqual({ at: h(3).toISOString(), rows: 10, status: 'SUCCESS', ageSeconds: 3 * 3600, error: null });
    expect(node('lake:etl.orders').dq.map((d) => `${d.branch} ${d.status}`)).toEqual(['b2 MISMATCH']);
    expect(node('source:b1:etl.orders').dq).toEqual([]);
    expect(node('lake:etl.orders').schema).toEqual([{ name: 'id', type: 'long' }]);
  });

  it('names the flows whose steps name a node: branch and table lists, selectors with +, other namespaces not', () => {
    const flows = (id: string) => node(id).flows.map((f) => f.name);
    expect(flows('source:b1:etl.orders')).toEqual(['b1-only']);
    expect(flows('source:b2:etl.orders')).toEqual([]);
    expect(flows('lake:etl.orders')).toEqual(['b1-only']);
    expect(flows('seed:regions')).toEqual(['regions-down']);
    expect(flows('model:orders_by_region')).toEqual(['regions-down']);
    expect(flows('test:not_null_regions_code')).toEqual(['regions-down']);
  });

  it('shows a lake table tables.json will create before its first load, with no load and no schema', () => {
    const g2 = buildAssetGraph({ ...base, lakeTables: [], control: [] });
    expect(g2.nodes.find((n) => n.id === 'lake:etl.orders')).toMatchObject({ last: null, schema: null, sourceTable: 'SHOP.ORDERS', freshness: null });
  });
});
