import { describe, expect, it } from 'vitest';
import { oraCanonicalExpr, oraCountSql, oraDigestSql, oraRowsSql, oracleKind } from './oracle-sql';

// No Oracle server exists here: these check the rendered text only.
const q = {
  rel: { from: 'OASIS.APPOINTMENTS t', where: `t."APPT_DATE" >= TO_TIMESTAMP('2026-01-01 00:00:00.000000', 'YYYY-MM-DD HH24:MI:SS.FF6')` },
  keys: [{ name: 'APPT_ID', sourceType: 'NUMBER(12,0)', asFloat: false }],
  columns: [
    { name: 'AMOUNT', sourceType: 'NUMBER(12,2)', asFloat: false },
    { name: 'APPT_DATE', sourceType: 'DATE', asFloat: false },
    { name: 'APPT_ID', sourceType: 'NUMBER(12,0)', asFloat: false },
    { name: 'NOTE', sourceType: 'VARCHAR2', asFloat: false },
  ],
};

describe('Oracle reconciler SQL (rendered text)', () => {
  it('maps Oracle types to canonical kinds', () => {
    expect(oracleKind('NUMBER(12,0)')).toBe('integer');
    expect(oracleKind('NUMBER(12,2)')).toBe('decimal');
    expect(oracleKind('BINARY_DOUBLE')).toBe('float');
    expect(oracleKind('TIMESTAMP(6) WITH TIME ZONE')).toBe('timestamp');
  });
  it('renders canonical expressions', () => {
    expect(oraCanonicalExpr('t."D"', { sourceType: 'DATE', asFloat: false })).toBe(`TO_CHAR(t."D", 'YYYY-MM-DD HH24:MI:SS')`);
    // each at its own precision: DATE to the second, TIMESTAMP(n) with n fraction digits (at most the lake's 6), zeros trimmed
    expect(oraCanonicalExpr('t."Z"', { sourceType: 'TIMESTAMP(6) WITH TIME ZONE', asFloat: false })).toBe(`RTRIM(RTRIM(TO_CHAR(SYS_EXTRACT_UTC(t."Z"), 'YYYY-MM-DD HH24:MI:SS.FF6'), '0'), '.')`);
    expect(oraCanonicalExpr('t."T"', { sourceType: 'TIMESTAMP(3)', asFloat: false })).toBe(`RTRIM(RTRIM(TO_CHAR(t."T", 'YYYY-MM-DD HH24:MI:SS.FF3'), '0'), '.')`);
    expect(oraCanonicalExpr('t."T"', { sourceType: 'TIMESTAMP(9)', asFloat: false })).toBe(`RTRIM(RTRIM(TO_CHAR(t."T", 'YYYY-MM-DD HH24:MI:SS.FF6'), '0'), '.')`);
    expect(oraCanonicalExpr('t."T"', { sourceType: 'TIMESTAMP(0)', asFloat: false })).toBe(`TO_CHAR(t."T", 'YYYY-MM-DD HH24:MI:SS')`);
    expect(oraCanonicalExpr('t."N"', { sourceType: 'NUMBER(12,2)', asFloat: false })).toBe(`REGEXP_REPLACE(TO_CHAR(t."N", 'TM9'), '^(-?)\\.', '\\10.')`);
    expect(oraCanonicalExpr('t."F"', { sourceType: 'NUMBER', asFloat: true })).toContain('ROUND(CAST(t."F" AS NUMBER), 14 - FLOOR(LOG(10, ABS(CAST(t."F" AS NUMBER)))))');
    expect(oraCanonicalExpr('t."R"', { sourceType: 'RAW', asFloat: false })).toBe('LOWER(RAWTOHEX(t."R"))');
  });
  it('renders the digest query with MD5 over UTF-8 and an exact signed sum', () => {
    const sql = oraDigestSql(q, 16, { bits: 8, prefixes: [3, 200] });
    expect(sql).toContain(`DBMS_OBFUSCATION_TOOLKIT.MD5(input => UTL_I18N.STRING_TO_RAW(NVL(REGEXP_REPLACE(TO_CHAR(t."APPT_ID", 'TM9'), '^(-?)\\.', '\\10.'), CHR(30)) || CHR(31), 'AL32UTF8'))`);
    expect(sql).toContain(`FLOOR(x.KU / 281474976710656) AS B`);
    expect(sql).toContain(`WHERE FLOOR(x.KU / 72057594037927936) IN (3, 200)`);
    expect(sql).toContain(`TO_CHAR(SUM((x.RU - CASE WHEN x.RU >= 9223372036854775808 THEN 18446744073709551616 ELSE 0 END))) AS S`);
    expect(sql).toContain(`FROM OASIS.APPOINTMENTS t WHERE t."APPT_DATE" >= TO_TIMESTAMP(`);
    expect(sql).toMatch(/GROUP BY FLOOR\(x\.KU \/ 281474976710656\)$/);
  });
  it('renders row and count queries', () => {
    const rows = oraRowsSql(q, { bits: 8, prefixes: Array.from({ length: 1500 }, (_, i) => i) });
    expect(rows).toContain('x.K0, x.V0, x.V1, x.V2, x.V3');
    expect(rows.match(/ IN \(/g)).toHaveLength(2); // Oracle's 1000-expression IN limit
    expect(oraCountSql(q.rel)).toBe(`SELECT COUNT(*) AS N FROM OASIS.APPOINTMENTS t WHERE ${q.rel.where}`);
  });
});
