import { describe, expect, it } from 'vitest';
import { DEFAULT_TQL_TEMPLATE, escapeTqlDoubleQuoted, lintTemplate, providerType, renderTql, templateAppName } from './tql-template';
import { parseComponent, parseProps, prop, splitTql } from './tql-parse';

describe('TQL template', () => {
  it('escapes quotes in slice SQL so the template parses back to the exact SQL', () => {
    const sql = `SELECT s.* FROM PAY.T s WHERE s.TYPE = 'CASE' AND s."Weird ""Col""" > 1 AND s.P LIKE 'a\\b%' AND s.X = '$&'`;
    const tql = renderTql(DEFAULT_TQL_TEMPLATE, { query: sql, target: 'PAY.T_TGT', providerSrc: providerType('oracle'), providerTgt: providerType('postgres') });
    const stmts = splitTql(tql);
    expect(stmts.map((s) => s.split(/\s+/).slice(0, 4).join(' '))).toEqual([
      'CREATE OR REPLACE APPLICATION', 'CREATE OR REPLACE SOURCE', 'CREATE OR REPLACE TARGET', 'END APPLICATION OracleInitialLoadApp',
    ]);
    const src = parseComponent(stmts[1])!;
    expect(src.adapter).toBe('DatabaseReader');
    expect(prop(src.props, 'Query')).toBe(sql);
    expect(prop(src.props, 'DatabaseProviderType')).toBe('Oracle');
    expect(prop(src.props, 'QuiesceOnILCompletion')).toBe('true');
    const tgt = parseComponent(stmts[2])!;
    expect(prop(tgt.props, 'Tables')).toBe('QUERY,PAY.T_TGT');
    expect(prop(tgt.props, 'DatabaseProviderType')).toBe('PostgreSQL');
    expect(prop(tgt.props, 'IgnorableExceptionCode')).toBe('DUPLICATE_ROW_EXISTS');
    expect(prop(tgt.props, 'Password')).toBe('$admin.TargetPassword');
  });

  it('turns line breaks into spaces and refuses a target that is not an identifier', () => {
    expect(escapeTqlDoubleQuoted('a\nb "c"')).toBe('a b \\"c\\"');
    expect(() => renderTql(DEFAULT_TQL_TEMPLATE, { query: 'x', target: "t'; drop", providerSrc: 'Oracle', providerTgt: 'Oracle' })).toThrow(/OWNER.TABLE/);
  });

  it('maps engines to provider types with overrides, and lints the seed rules', () => {
    expect(providerType('postgres')).toBe('PostgreSQL');
    expect(providerType('oracle', 'OracleX')).toBe('OracleX');
    expect(() => providerType('db2')).toThrow(/unknown engine/);
    expect(templateAppName(DEFAULT_TQL_TEMPLATE)).toBe('OracleInitialLoadApp');
    expect(lintTemplate(DEFAULT_TQL_TEMPLATE)).toEqual([]);
    expect(lintTemplate(DEFAULT_TQL_TEMPLATE.replace('QuiesceOnILCompletion: true', 'QuiesceOnILCompletion: false'))[0]).toMatch(/never complete/);
  });

  it('parses property lists with both quote styles', () => {
    expect(parseProps(`A: 'x, y', B: "q\\"r", C: true, D: 100`)).toEqual({ A: 'x, y', B: 'q"r', C: 'true', D: '100' });
    expect(splitTql("USE ns; -- comment ; here\nmon;")).toEqual(['USE ns', 'mon']);
  });
});
