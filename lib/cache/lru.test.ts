import { describe, expect, it } from 'vitest';
import { Lru } from './lru';

describe('Lru', () => {
  it('drops the least recently used past max entries; a hit counts as a use', () => {
    const c = new Lru<string, number>({ max: 2 });
    c.set('a', 1); c.set('b', 2);
    expect(c.get('a')).toBe(1); // b is now the least recently used
    c.set('c', 3);
    expect([c.get('a'), c.get('b'), c.get('c'), c.size]).toEqual([1, undefined, 3, 2]);
  });

  it('keeps at most maxBytes as sizeOf counts; a value larger than the budget alone is not kept', () => {
    const c = new Lru<string, string>({ maxBytes: 10, sizeOf: (v) => v.length });
    c.set('a', 'xxxx'); c.set('b', 'yyyy');
    c.set('a', 'xx'); // replacing counts the new size only
    expect(c.bytes).toBe(6);
    c.set('c', 'zzzzzz'); // 12 > 10: b (least recently used) goes
    expect([c.get('b'), c.get('a'), c.get('c'), c.bytes]).toEqual([undefined, 'xx', 'zzzzzz', 8]);
    c.set('huge', 'x'.repeat(11));
    expect([c.get('huge'), c.size, c.bytes]).toEqual([undefined, 2, 8]);
    c.delete('a');
    expect([c.get('a'), c.bytes]).toEqual([undefined, 6]);
  });
});
