// Collapsing groups and searching, on a small hand-built graph (pure).
import { describe, expect, it } from 'vitest';
import { collapseGroups, searchAssets } from './collapse';
import type { AssetNode } from './types';

const node = (id: string, group: string, name = id.split(':').pop()!): AssetNode => ({ id, kind: id.split(':')[0] as AssetNode['kind'], name, group, last: null, dq: [], schema: null, freshness: null, flows: [] });
const nodes = [node('source:b1:etl.a', 'branch b1', 'SHOP.A'), node('source:b1:etl.b', 'branch b1', 'SHOP.B'), node('lake:etl.a', 'etl'), node('lake:etl.b', 'etl'), node('model:m', 'models/marts'), node('test:t', 'models/marts')];
const edges = [
  { from: 'source:b1:etl.a', to: 'lake:etl.a' }, { from: 'source:b1:etl.b', to: 'lake:etl.b' },
  { from: 'lake:etl.a', to: 'model:m' }, { from: 'lake:etl.b', to: 'model:m' }, { from: 'model:m', to: 'test:t' },
];

describe('collapseGroups', () => {
  it('draws every node when nothing is collapsed', () => {
    const r = collapseGroups(nodes, edges, new Set());
    expect(r.nodes.map((n) => n.id)).toEqual(nodes.map((n) => n.id));
    expect(r.edges).toEqual(edges);
  });

  it('merges a group into one node, rewires and dedupes its edges, drops inner ones', () => {
    const r = collapseGroups(nodes, edges, new Set(['etl', 'models/marts']));
    expect(r.nodes.map((n) => (n.type === 'group' ? `${n.id} (${n.members.length})` : n.id))).toEqual(['source:b1:etl.a', 'source:b1:etl.b', 'group:etl (2)', 'group:models/marts (2)']);
    expect(r.edges).toEqual([{ from: 'source:b1:etl.a', to: 'group:etl' }, { from: 'source:b1:etl.b', to: 'group:etl' }, { from: 'group:etl', to: 'group:models/marts' }]);
  });
});

describe('searchAssets', () => {
  it('matches every word against name, id, group and source table; empty finds nothing', () => {
    expect(searchAssets(nodes, 'shop.a').map((n) => n.id)).toEqual(['source:b1:etl.a']);
    expect(searchAssets(nodes, 'ETL.B').map((n) => n.id)).toEqual(['lake:etl.b', 'source:b1:etl.b']); // the lake node's name is etl.b: exact first
    expect(searchAssets(nodes, 'b1 shop').map((n) => n.id)).toEqual(['source:b1:etl.a', 'source:b1:etl.b']);
    // an exact name first, then names starting with the query
    expect(searchAssets([node('model:orders_x', 'm'), node('model:x_orders', 'm'), node('model:orders', 'm')], 'orders').map((n) => n.id)).toEqual(['model:orders', 'model:orders_x', 'model:x_orders']);
    expect(searchAssets(nodes, 'marts')).toHaveLength(2);
    expect(searchAssets(nodes, '  ')).toEqual([]);
  });
});
