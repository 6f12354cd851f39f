import { describe, expect, test } from 'vitest';
import { layoutDag } from './dag-layout';

describe('layoutDag', () => {
  test('columns by longest path from a root; rows follow the parents', () => {
    const l = layoutDag([
      { id: 'stg_a', parents: [] }, { id: 'stg_b', parents: [] },
      { id: 'mart', parents: ['stg_a', 'stg_b'] }, { id: 'report', parents: ['mart', 'stg_a'] }, { id: 'b_only', parents: ['stg_b'] },
    ]);
    const at = Object.fromEntries(l.nodes.map((n) => [n.id, [n.column, n.row]]));
    expect(at).toEqual({ stg_a: [0, 0], stg_b: [0, 1], mart: [1, 0], b_only: [1, 1], report: [2, 0] });
    expect(l.edges).toHaveLength(5);
    expect(l.width).toBe(3 * 220);
  });
  test('a cycle does not hang the layout', () => {
    expect(layoutDag([{ id: 'a', parents: ['b'] }, { id: 'b', parents: ['a'] }]).nodes).toHaveLength(2);
  });
});
