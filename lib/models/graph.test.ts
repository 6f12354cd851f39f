import { describe, expect, test } from 'vitest';
import { buildGraph } from './graph';
import { parseProject } from './project';
import { selectNodes } from './selector';

// A project graph: a → b → c, a → d, with tags, folders and tests.
const FILES: Record<string, string> = {
  'models/staging/a.sql': "{{ config(tags=['nightly']) }}SELECT 1 AS id",
  'models/staging/d.sql': "SELECT * FROM {{ ref('a') }}",
  'models/marts/b.sql': "{{ config(materialized='table', tags=['nightly', 'finance']) }}SELECT * FROM {{ ref('a') }}",
  'models/marts/c.sql': "SELECT * FROM {{ ref('b') }}",
  'models/schema.yml': 'models:\n  - name: b\n    columns:\n      - name: id\n        tests: [unique]\n  - name: c\n    columns:\n      - name: id\n        tests: [not_null]\n',
  'tests/c_positive.sql': "SELECT * FROM {{ ref('c') }} WHERE id < 0",
};

function sel(select: string[], exclude: string[] = [], files = FILES): string[] {
  const p = parseProject('/p', files);
  expect(p.errors).toEqual([]);
  return [...selectNodes(p, buildGraph(p), select, exclude)].sort();
}

describe('dbt selection syntax', () => {
  test('name, +name, name+, +name+ and depth limits', () => {
    expect(sel(['b'])).toEqual(['model:b', 'test:unique_b_id']);
    expect(sel(['+b'])).toEqual(['model:a', 'model:b', 'test:unique_b_id']);
    expect(sel(['b+'])).toEqual(['model:b', 'model:c', 'test:c_positive', 'test:not_null_c_id', 'test:unique_b_id']);
    expect(sel(['+c']).filter((x) => x.startsWith('model:'))).toEqual(['model:a', 'model:b', 'model:c']);
    expect(sel(['1+c']).filter((x) => x.startsWith('model:'))).toEqual(['model:b', 'model:c']);
    expect(sel(['a+1']).filter((x) => x.startsWith('model:'))).toEqual(['model:a', 'model:b', 'model:d']);
  });
  test('tag:, path:, globs, unions, intersections and --exclude', () => {
    expect(sel(['tag:nightly']).filter((x) => x.startsWith('model:'))).toEqual(['model:a', 'model:b']);
    expect(sel(['tag:finance'])).toEqual(['model:b', 'test:unique_b_id']);
    expect(sel(['path:models/staging'])).toEqual(['model:a', 'model:d']);
    expect(sel(['path:marts']).filter((x) => x.startsWith('model:'))).toEqual(['model:b', 'model:c']);
    expect(sel(['path:models/marts/c.sql'])).toEqual(['model:c', 'test:c_positive', 'test:not_null_c_id']);
    expect(sel(['a d'])).toEqual(['model:a', 'model:d']);
    expect(sel(['a', 'c']).filter((x) => x.startsWith('model:'))).toEqual(['model:a', 'model:c']);
    expect(sel(['tag:nightly,path:marts'])).toEqual(['model:b', 'test:unique_b_id']);
    expect(sel(['*'], ['c']).filter((x) => !x.includes('c'))).toEqual(['model:a', 'model:b', 'model:d', 'test:unique_b_id']);
    expect(sel(['a+'], ['b+'])).toEqual(['model:a', 'model:d']);
    expect(sel([], ['tag:nightly'])).toEqual(['model:c', 'model:d', 'test:c_positive', 'test:not_null_c_id']);
    expect(sel(['test_type:singular'])).toEqual(['test:c_positive']);
    expect(() => sel(['bogus:x'])).toThrow(/unknown selector method "bogus"/);
  });
  test('everything when nothing is selected; disabled models never', () => {
    expect(sel([])).toHaveLength(7);
    const files = { ...FILES, 'models/marts/c.sql': "{{ config(enabled=false) }}SELECT * FROM {{ ref('b') }}" };
    expect(sel([], [], files)).not.toContain('model:c');
  });
});

describe('graph', () => {
  test('a cycle is refused, naming its models', () => {
    const p = parseProject('/p', { 'models/x.sql': "SELECT * FROM {{ ref('z') }}", 'models/y.sql': "SELECT * FROM {{ ref('x') }}", 'models/z.sql': "SELECT * FROM {{ ref('y') }}", 'models/ok.sql': 'SELECT 1' });
    expect(() => buildGraph(p)).toThrow('models: dependency cycle: x → z → y → x');
  });
  test('a self-ref is a cycle too', () => {
    const p = parseProject('/p', { 'models/s.sql': "SELECT * FROM {{ ref('s') }}" });
    expect(() => buildGraph(p)).toThrow('models: dependency cycle: s → s');
  });
  test('dependency order puts parents first', () => {
    const p = parseProject('/p', FILES);
    const order = buildGraph(p).order;
    expect(order.indexOf('model:a')).toBeLessThan(order.indexOf('model:b'));
    expect(order.indexOf('model:b')).toBeLessThan(order.indexOf('model:c'));
  });
  test('parse errors name the file: unknown ref, duplicate names, bad yml', () => {
    const p = parseProject('/p', {
      'models/a.sql': "SELECT * FROM {{ ref('nope') }}", 'models/x/a.sql': 'SELECT 1',
      'models/schema.yml': 'models:\n  - name: a\n    columns:\n      - name: id\n        tests: [bogus]\n',
    });
    expect(p.errors.map((e) => e.message)).toEqual([
      'models: models/schema.yml: a.id: unknown test "bogus" — custom generic tests ({% test %} blocks in macros/) and package tests (dbt_utils.…) are not supported; Tributary runs dbt\'s built-in not_null, unique, accepted_values, relationships',
      'models: two models named a: models/a.sql and models/x/a.sql',
      'models: a refs nope, which is no model or seed',
    ]);
  });
});
