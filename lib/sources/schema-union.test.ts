import { describe, expect, it } from 'vitest';
import { inferNumeric, unionSchemas, widen } from './schema-union';

const dec = (precision: number, scale: number) => ({ kind: 'decimal' as const, precision, scale });

describe('widen', () => {
  it('follows the lattice', () => {
    expect(widen({ kind: 'int' }, { kind: 'long' })).toEqual({ kind: 'long' });
    expect(widen(dec(18, 2), dec(18, 4))).toEqual(dec(20, 4));
    expect(widen({ kind: 'long' }, dec(10, 2))).toEqual(dec(21, 2));
    expect(widen({ kind: 'float' }, { kind: 'double' })).toEqual({ kind: 'double' });
    expect(widen({ kind: 'date' }, { kind: 'timestamp' })).toEqual({ kind: 'timestamp' });
    expect(widen({ kind: 'timestamp' }, { kind: 'timestamptz' })).toEqual({ kind: 'timestamptz' });
    expect(widen({ kind: 'long' }, { kind: 'string' })).toBeNull();
  });
  it('refuses precision beyond 38 with a clear error', () => {
    expect(() => widen(dec(38, 0), dec(38, 10), 'AMOUNT')).toThrow(/AMOUNT.*decimal\(48,10\).*38/);
  });
});

describe('unionSchemas', () => {
  it('keeps every column, widens, reports drift and missing columns', () => {
    const r = unionSchemas({
      a: [{ name: 'ID', type: { kind: 'long' } }, { name: 'AMT', type: dec(18, 2) }, { name: 'CODE', type: { kind: 'int' } }],
      b: [{ name: 'ID', type: { kind: 'long' } }, { name: 'AMT', type: dec(18, 4) }, { name: 'CODE', type: { kind: 'string' } }, { name: 'EXTRA', type: { kind: 'string' } }],
    });
    expect(r.columns).toEqual([
      { name: 'ID', type: { kind: 'long' } }, { name: 'AMT', type: dec(20, 4) }, { name: 'CODE', type: { kind: 'string' } }, { name: 'EXTRA', type: { kind: 'string' } },
    ]);
    expect(r.drift).toContainEqual({ column: 'AMT', kind: 'widened', types: { a: 'decimal(18,2)', b: 'decimal(18,4)' }, resolved: 'decimal(20,4)' });
    expect(r.drift).toContainEqual({ column: 'CODE', kind: 'to_string', types: { a: 'int', b: 'string' }, resolved: 'string' });
    expect(r.drift).toContainEqual({ column: 'EXTRA', kind: 'missing', missingIn: ['a'] });
  });
  it('never narrows the existing lake schema', () => {
    const r = unionSchemas({ a: [{ name: 'AMT', type: dec(10, 2) }] }, [{ name: 'AMT', type: dec(20, 4) }, { name: 'OLD', type: { kind: 'string' } }]);
    expect(r.columns).toEqual([{ name: 'AMT', type: dec(20, 4) }, { name: 'OLD', type: { kind: 'string' } }]);
  });
  it('infers unconstrained numerics without clipping large ids', () => {
    expect(inferNumeric({ intDigits: 12, scale: 0 })).toEqual({ kind: 'long' });
    expect(inferNumeric({ intDigits: 25, scale: 0 })).toEqual(dec(38, 0));
    expect(inferNumeric({ intDigits: 5, scale: 3 })).toEqual(dec(38, 3));
  });
});

describe('lists and names (issue 21)', () => {
  const list = (element: { kind: 'int' } | { kind: 'long' } | { kind: 'string' }) => ({ kind: 'list' as const, element });
  it('widens lists by their elements; a list and a scalar become string', () => {
    expect(widen(list({ kind: 'int' }), list({ kind: 'long' }))).toEqual(list({ kind: 'long' }));
    expect(widen(list({ kind: 'int' }), list({ kind: 'string' }))).toBeNull();
    expect(widen(list({ kind: 'string' }), { kind: 'string' })).toBeNull();
    const r = unionSchemas({ a: [{ name: 'TAGS', type: list({ kind: 'string' }) }], b: [{ name: 'TAGS', type: { kind: 'string' } }] });
    expect(r.columns).toEqual([{ name: 'TAGS', type: { kind: 'string' } }]);
    expect(r.drift[0]).toMatchObject({ column: 'TAGS', kind: 'to_string', types: { a: 'list<string>', b: 'string' } });
  });
  it('matches names without regard to case, keeping the lake\'s spelling (then the first branch\'s)', () => {
    const r = unionSchemas(
      { a: [{ name: 'film_id', type: { kind: 'int' } }, { name: 'title', type: { kind: 'string' } }], b: [{ name: 'FILM_ID', type: { kind: 'long' } }, { name: 'Title', type: { kind: 'string' } }] },
      [{ name: 'FILM_ID', type: { kind: 'int' } }],
    );
    expect(r.columns).toEqual([{ name: 'FILM_ID', type: { kind: 'long' } }, { name: 'title', type: { kind: 'string' } }]);
  });
});

// An unconstrained numeric's type is inferred from each load's rows: the union goes by the rows'
// digits, so a scale change, an empty load or integer values never stop a table (smoke test, session 20).
describe('unconstrained numerics by their rows\' digits', () => {
  const dec = (precision: number, scale: number) => ({ kind: 'decimal' as const, precision, scale });
  const col = (need: { intDigits: number; scale: number }) => ({ name: 'price', type: inferNumeric(need), need });
  it('keeps the lake\'s type when it holds the rows: an empty load, integer values, fewer digits; no drift', () => {
    for (const need of [{ intDigits: 0, scale: 0 }, { intDigits: 12, scale: 0 }, { intDigits: 15, scale: 21 }]) {
      const u = unionSchemas({ A: [col(need)] }, [{ name: 'price', type: dec(38, 21) }]);
      expect(u.columns).toEqual([{ name: 'price', type: dec(38, 21) }]);
      expect(u.drift).toEqual([]);
    }
    expect(unionSchemas({ A: [col({ intDigits: 3, scale: 0 })] }, [{ name: 'price', type: { kind: 'long' } }]).columns[0].type).toEqual({ kind: 'long' });
  });
  it('a larger scale: decimal(38, that scale), which the lake reaches by a checked rewrite; branches with different scales join', () => {
    expect(unionSchemas({ A: [col({ intDigits: 1, scale: 10 })] }, [{ name: 'price', type: dec(38, 2) }]).columns[0].type).toEqual(dec(38, 10));
    expect(unionSchemas({ A: [col({ intDigits: 1, scale: 3 })] }, [{ name: 'price', type: { kind: 'long' } }]).columns[0].type).toEqual(dec(38, 3));
    expect(unionSchemas({ A: [col({ intDigits: 15, scale: 21 })], B: [col({ intDigits: 3, scale: 2 })] }).columns[0].type).toEqual(dec(38, 21));
    expect(unionSchemas({ A: [col({ intDigits: 5, scale: 0 })], B: [col({ intDigits: 18, scale: 0 })] }).columns[0].type).toEqual({ kind: 'long' });
    // more integer digits at the lake's scale: a precision promotion
    expect(unionSchemas({ A: [col({ intDigits: 14, scale: 2 })] }, [{ name: 'price', type: dec(12, 2) }]).columns[0].type).toEqual(dec(16, 2));
  });
  it('declared branches count with their declared digits; rows beyond precision 38 are refused naming the column', () => {
    expect(unionSchemas({ A: [col({ intDigits: 2, scale: 6 })], B: [{ name: 'price', type: dec(12, 2) }] }).columns[0].type).toEqual(dec(38, 6));
    expect(() => unionSchemas({ A: [col({ intDigits: 2, scale: 21 })], B: [{ name: 'price', type: dec(30, 0) }] })).toThrow(/column price: its rows need 30 integer and 21 fraction digits, beyond the maximum precision 38/);
    // a branch where the column is text: the general rule (string, reported as drift)
    const u = unionSchemas({ A: [col({ intDigits: 2, scale: 2 })], B: [{ name: 'price', type: { kind: 'string' } }] });
    expect(u.columns[0].type).toEqual({ kind: 'string' });
    expect(u.drift[0]).toMatchObject({ kind: 'to_string' });
  });
});
