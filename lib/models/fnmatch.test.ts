import { describe, expect, test } from 'vitest';
import { fnmatch, fnmatchRegExp } from './fnmatch';

describe("fnmatch, as Python's (dbt's selector values)", () => {
  test('*, ?, sets, ranges, negation; a [ with no ] is itself; other characters are literal', () => {
    expect([fnmatch('stg_orders', 'stg_*'), fnmatch('a.b.c', '*'), fnmatch('a.b', 'a?b'), fnmatch('ab', 'a?b')]).toEqual([true, true, true, false]);
    expect([fnmatch('stg_a', 'stg_[ab]'), fnmatch('stg_c', 'stg_[ab]'), fnmatch('b', '[a-c]'), fnmatch('d', '[a-c]')]).toEqual([true, false, true, false]);
    expect([fnmatch('c', '[!ab]'), fnmatch('a', '[!ab]'), fnmatch(']', '[]]'), fnmatch('x[', 'x['), fnmatch('^', '[^]')]).toEqual([true, false, true, true, true]);
    expect([fnmatch('a+b', 'a+b'), fnmatch('a(b)', 'a(b)'), fnmatch('Orders', 'orders'), fnmatch('a/b', 'a*')]).toEqual([true, true, false, true]);
  });
  test('as a path glob: * and ? stay within a folder, a ** segment crosses any number of them', () => {
    const g = (p: string, s: string) => fnmatchRegExp(p, { segment: true }).test(s);
    expect([g('models/*', 'models/a'), g('models/*', 'models/a/b'), g('models/**/x.sql', 'models/x.sql'), g('models/**/x.sql', 'models/a/b/x.sql'), g('models/**', 'models/a/b')]).toEqual([true, false, true, true, true]);
  });
});
