import { describe, expect, it } from 'vitest';
import { checkDag, descendantsOf, findCycle, topologicalOrder } from './dag';

const e = (s: string) => s.split(' ').map((p) => { const [from, to] = p.split('>'); return { from, to }; });

describe('DAG ordering', () => {
  it('puts every node after its parents, keeping declared order for ties', () => {
    expect(topologicalOrder(['masters', 'transactions', 'dq', 'models'], e('masters>transactions transactions>dq transactions>models')))
      .toEqual(['masters', 'transactions', 'dq', 'models']);
    expect(topologicalOrder(['d', 'c', 'b', 'a'], e('a>b b>c'))).toEqual(['d', 'a', 'b', 'c']);
    expect(topologicalOrder(['x', 'y'], [])).toEqual(['x', 'y']);
  });
  it('lists descendants', () => {
    expect([...descendantsOf('a', ['a', 'b', 'c', 'd'], e('a>b b>c'))].sort()).toEqual(['b', 'c']);
  });
});

describe('cycles and structure', () => {
  it('finds a cycle and names its nodes in order', () => {
    expect(findCycle(['a', 'b', 'c', 'd'], e('a>b b>c c>d d>b'))).toEqual(['b', 'c', 'd', 'b']);
    expect(findCycle(['a', 'b'], e('a>b'))).toBeNull();
    expect(() => topologicalOrder(['a', 'b'], e('a>b b>a'))).toThrow(/cycle: a → b → a/);
  });
  it('reports the first structural problem with its field', () => {
    expect(checkDag(['a', 'b', 'c'], e('a>b b>c c>a'))).toEqual({ field: 'edges', message: 'the flow has a cycle: a → b → c → a' });
    expect(checkDag(['a', 'b'], e('a>b b>zz'))).toMatchObject({ field: 'edges[1].to', message: expect.stringMatching(/unknown node 'zz'/) });
    expect(checkDag(['a', 'b'], e('q>b'))).toMatchObject({ field: 'edges[0].from' });
    expect(checkDag(['a', 'a'], [])).toMatchObject({ field: 'nodes[1].id' });
    expect(checkDag(['a'], e('a>a'))).toMatchObject({ field: 'edges[0]' });
    expect(checkDag(['a', 'b'], e('a>b a>b'))).toMatchObject({ field: 'edges[1]', message: expect.stringMatching(/duplicate/) });
    expect(checkDag(['a', 'b', 'c'], e('a>b a>c'))).toBeNull();
  });
});
