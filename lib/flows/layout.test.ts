import { describe, expect, it } from 'vitest';
import { layoutFlow, NODE_SIZE } from './layout';

describe('layoutFlow', () => {
  it('places every node right of its parents, without overlaps, deterministically', () => {
    const nodes = ['masters', 'transactions', 'dq', 'models', 'lonely'].map((id) => ({ id }));
    const edges = [{ from: 'masters', to: 'transactions' }, { from: 'transactions', to: 'dq' }, { from: 'transactions', to: 'models' }];
    const a = layoutFlow(nodes, edges);
    const p = a.positions;
    expect(Object.keys(p).sort()).toEqual(['dq', 'lonely', 'masters', 'models', 'transactions']);
    for (const ed of edges) expect(p[ed.to].x).toBeGreaterThanOrEqual(p[ed.from].x + NODE_SIZE.width);
    expect(p.dq.x).toBe(p.models.x); // siblings share a layer
    const boxes = Object.values(p);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const overlap = Math.abs(boxes[i].x - boxes[j].x) < NODE_SIZE.width && Math.abs(boxes[i].y - boxes[j].y) < NODE_SIZE.height;
      expect(overlap).toBe(false);
    }
    expect(layoutFlow(nodes, edges)).toEqual(a);
    expect(a.width).toBeGreaterThan(3 * NODE_SIZE.width);
  });
  it('lays top to bottom when asked and ignores edges to unknown nodes', () => {
    const r = layoutFlow([{ id: 'a' }, { id: 'b' }], [{ from: 'a', to: 'b' }, { from: 'a', to: 'ghost' }], { direction: 'TB' });
    expect(r.positions.b.y).toBeGreaterThan(r.positions.a.y);
    expect(r.positions.ghost).toBeUndefined();
  });
});
