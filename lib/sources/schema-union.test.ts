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
