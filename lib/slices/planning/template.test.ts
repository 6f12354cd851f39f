import { describe, expect, it } from 'vitest';
import { flattenSql, parseTemplate, renderSlice } from './template';

const JOIN = `SELECT /*+ PARALLEL(4) */ s.A, s.B, r.C
FROM PAY.CM_FB_SUBMISSION s
JOIN PAY.CM_FB_SUBMSN_RESP r ON r.T = s.T
WHERE s.ENTITY_TYPE = 'CASE' -- only cases
AND ~SPLIT~`;

describe('query templates', () => {
  it('replaces ~SPLIT~ and keeps joins, hints and comments verbatim', () => {
    const t = parseTemplate(JOIN, { table: 'PAY.CM_FB_SUBMISSION' });
    expect(t.alias).toBe('s');
    const sql = renderSlice(t, { predicate: "s.ROWID BETWEEN 'AAA' AND 'BBB'" });
    expect(sql).toContain("WHERE s.ENTITY_TYPE = 'CASE' -- only cases\nAND s.ROWID BETWEEN 'AAA' AND 'BBB'");
    expect(sql).toContain('/*+ PARALLEL(4) */');
    expect(flattenSql(sql)).toBe("SELECT /*+ PARALLEL(4) */ s.A, s.B, r.C FROM PAY.CM_FB_SUBMISSION s JOIN PAY.CM_FB_SUBMSN_RESP r ON r.T = s.T WHERE s.ENTITY_TYPE = 'CASE' /* only cases */ AND s.ROWID BETWEEN 'AAA' AND 'BBB'");
  });
  it('appends WHERE / AND when the marker is absent, before ORDER BY, keeping OR precedence', () => {
    const a = parseTemplate('select * from public.big b order by id', { table: 'public.big' });
    expect(renderSlice(a, { predicate: 'b.id < 5' })).toBe('select * from public.big b WHERE b.id < 5 order by id');
    const w = parseTemplate("SELECT * FROM PAY.T x WHERE x.a = 1 OR x.b = 'z;|'", { table: 'PAY.T' });
    expect(renderSlice(w, { predicate: 'x.id >= 3' })).toBe("SELECT * FROM PAY.T x WHERE (x.a = 1 OR x.b = 'z;|') AND x.id >= 3");
  });
  it('detects AS aliases, unqualified names, and honours --alias on self-joins', () => {
    expect(parseTemplate('select * from big as q where ~SPLIT~', { table: 'public.big' }).alias).toBe('q');
    expect(parseTemplate('select * from public.big where ~SPLIT~', { table: 'PUBLIC.BIG' }).alias).toBe('big');
    const self = 'select * from PAY.T a join PAY.T b on a.p = b.id where ~SPLIT~';
    expect(parseTemplate(self, { table: 'PAY.T', alias: 'b' }).alias).toBe('b');
    expect(() => parseTemplate(self, { table: 'PAY.T', alias: 'c' })).toThrow("✗ alias 'c' is not the alias of PAY.T");
    expect(() => parseTemplate(self, { table: 'PAY.T', alias: 'c;x' })).toThrow('✗ invalid alias identifier');
    expect(() => parseTemplate('select 1 from dual', { table: 'PAY.T' })).toThrow('✗ table PAY.T not found');
  });
  it('rewrites the driving table reference for partitions, adding the alias when missing', () => {
    const t = parseTemplate('SELECT s.* FROM PAY.T s WHERE ~SPLIT~;', { table: 'PAY.T' });
    expect(renderSlice(t, { predicate: '1=1', tableRef: 'PAY.T PARTITION (P1)' })).toBe('SELECT s.* FROM PAY.T PARTITION (P1) s WHERE 1=1');
    const u = parseTemplate('SELECT big.* FROM public.big WHERE ~SPLIT~', { table: 'public.big' });
    expect(renderSlice(u, { predicate: '1=1', tableRef: 'public.big_p1' })).toBe('SELECT big.* FROM public.big_p1 big WHERE 1=1');
  });
  it('rejects a |TARGET suffix left in the template, but not || concatenation', () => {
    expect(() => parseTemplate('SELECT s.* FROM PAY.T s WHERE ~SPLIT~|PAY.TGT', { table: 'PAY.T' }))
      .toThrow(/must not carry a \|TARGET suffix \(found '\|PAY.TGT'\).*split --target/);
    expect(parseTemplate("SELECT s.a || '|' || s.b FROM PAY.T s WHERE ~SPLIT~", { table: 'PAY.T' }).alias).toBe('s');
  });
  it('ignores ~SPLIT~ inside strings and comments; replaces every real marker', () => {
    const t = parseTemplate("SELECT '~SPLIT~' FROM PAY.T s WHERE ~SPLIT~ /* ~SPLIT~ */ UNION ALL SELECT 'x' FROM PAY.T s WHERE ~SPLIT~", { table: 'PAY.T' });
    expect(t.splitAt.length).toBe(2);
    expect(renderSlice(t, { predicate: 'P' })).toBe("SELECT '~SPLIT~' FROM PAY.T s WHERE P /* ~SPLIT~ */ UNION ALL SELECT 'x' FROM PAY.T s WHERE P");
  });
  it('refuses a line break inside a string literal when flattening', () => {
    expect(() => flattenSql("select 'a\nb' from t")).toThrow(/line break inside a string literal/);
  });
});
