import { describe, expect, test } from 'vitest';
import { clickhouseType, declaredType, inferType, parseCsv } from './seed-csv';

describe('seed CSV', () => {
  test('RFC 4180 fields: quotes, doubled quotes, delimiters and line breaks inside quotes, CRLF, a BOM; empty and null are NULL', () => {
    expect(parseCsv('\ufeffid,note\r\n1,"a, ""b""\nc"\r\n2,\r\n3,NULL\r\n', 's.csv')).toEqual({
      columns: ['id', 'note'], rows: [['1', 'a, "b"\nc'], ['2', null], ['3', null]],
    });
    expect(parseCsv('a;b\n1;2', 's.csv', ';').rows).toEqual([['1', '2']]);
  });

  test('broken files are refused naming the file and the row', () => {
    expect(() => parseCsv('a,b\n1\n', 's.csv')).toThrow('models: s.csv: row 2 has 1 fields, the header 2');
    expect(() => parseCsv('a,a\n1,2\n', 's.csv')).toThrow('models: s.csv: column a appears twice in the header');
    expect(() => parseCsv('a\n"x\n', 's.csv')).toThrow(/a quoted field is never closed/);
    expect(() => parseCsv('', 's.csv')).toThrow(/needs a header row/);
    expect(() => parseCsv('a\n1\n', 's.csv', '"')).toThrow(/delimiter must be one character/);
  });

  test('types in dbt\'s order: integer, float, date, timestamp, boolean, text; nulls do not count', () => {
    expect(inferType(['1', null, '-20'])).toBe('integer');
    expect(inferType(['1', '2.5', '1e3'])).toBe('float');
    expect(inferType(['99999999999999999999'])).toBe('float');
    expect(inferType(['2024-02-29', null])).toBe('date');
    expect(inferType(['2023-02-29'])).toBe('text');
    expect(inferType(['2024-01-02 03:04:05', '2024-01-02T03:04:05.123Z'])).toBe('timestamp');
    expect(inferType(['true', 'FALSE'])).toBe('boolean');
    expect(inferType(['1', 'x'])).toBe('text');
    expect(inferType([null, null])).toBe('text');
    expect(clickhouseType('timestamp')).toBe("Nullable(DateTime64(6, 'UTC'))");
  });

  test('column_types: type names only (they land in DDL), wrapped in Nullable unless they say how NULL is stored', () => {
    expect(declaredType('varchar(32)', 'w')).toBe('Nullable(varchar(32))');
    expect(declaredType("DateTime64(3, 'Europe/Paris')", 'w')).toBe("Nullable(DateTime64(3, 'Europe/Paris'))");
    expect(declaredType('LowCardinality(String)', 'w')).toBe('LowCardinality(String)');
    expect(declaredType('double precision', 'w')).toBe('Nullable(double precision)');
    for (const bad of ['String) ENGINE = File(CSV', "String DEFAULT file('x')", 'Int32; DROP TABLE x', 'Decimal(10, 2))', 'String DEFAULT 1']) {
      expect(() => declaredType(bad, 'seed s.c'), bad).toThrow(/^models: seed s\.c: column type .* is not a type name/);
    }
  });
});
