import { describe, expect, test } from 'vitest';
import { buildGraph } from './graph';
import { parseProject } from './project';
import { selectNodes } from './selector';

// dbt_project.yml's folder configs: dbt's precedence (config() > properties
// yml > most specific folder > project), tags adding up, and every key that
// is not applied reported as a warning.

const PROJECT = `name: shop
models:
  +tags: [all]
  shop:
    +materialized: table
    +engine: Log
    staging:
      +materialized: view
      +tags: [stg]
      deep:
        +materialized: incremental
      stg_one:
        +tags: [one]
    marts:
      +unknown_thing: 1
      +schema: analytics
  other_pkg:
    +materialized: table
seeds:
  shop:
    +tags: [raw]
    +delimiter: ';'
    +column_types: {id: Int32}
    lookups:
      +quote_columns: false
      +column_types: {code: 'varchar(8)'}
tests:
  shop:
    +severity: warn
    staging:
      +severity: error
      +store_failures: true
`;

const FILES: Record<string, string> = {
  'dbt_project.yml': PROJECT,
  'models/top.sql': 'SELECT 1 AS x\n',
  'models/staging/stg_one.sql': "SELECT id FROM {{ ref('a') }}\n",
  'models/staging/stg_two.sql': 'SELECT 1 AS id\n',
  'models/staging/stg_three.sql': "{{ config(materialized='view', tags=['mine'], persist_docs={'relation': true}) }}\nSELECT 1 AS id\n",
  'models/staging/deep/stg_deep.sql': 'SELECT 1 AS id\n',
  'models/marts/m.sql': "SELECT * FROM {{ ref('stg_one') }}\n",
  'models/staging/schema.yml': `version: 2
models:
  - name: stg_one
    columns:
      - name: id
        tests: [unique, {not_null: {config: {severity: warn}}}]
  - name: stg_two
    config: {materialized: table, tags: [yml], colour: blue}
  - name: stg_three
    config: {materialized: table}
`,
  'models/schema.yml': 'version: 2\nmodels:\n  - name: m\n    columns:\n      - name: id\n        tests: [not_null]\n',
  'tests/t.sql': "SELECT * FROM {{ ref('m') }} WHERE id < 0\n",
  'seeds/a.csv': 'id;Name\n1;x\n',
  'seeds/lookups/b.csv': 'Code;Label\nA;x\n',
  'seeds/schema.yml': 'version: 2\nseeds:\n  - name: a\n    config: {tags: [yml_seed]}\n    columns:\n      - name: id\n        tests: [unique]\n',
};

describe('dbt_project.yml folder configs', () => {
  const p = parseProject('/x', FILES);

  test('models: project level, then each folder down to the file; the properties yml over folders; config() over all', () => {
    expect(p.errors).toEqual([]);
    const m = (n: string) => p.models.get(n)!.config;
    expect(m('top')).toMatchObject({ materialized: 'table', engine: 'Log', tags: ['all'] });
    expect(m('stg_one')).toMatchObject({ materialized: 'view', engine: 'Log', tags: ['all', 'stg', 'one'] });
    expect(m('stg_deep').materialized).toBe('incremental');
    expect(m('stg_two')).toMatchObject({ materialized: 'table', tags: ['all', 'stg', 'yml'] });
    expect(m('stg_three')).toMatchObject({ materialized: 'view', tags: ['all', 'stg', 'mine'] });
    expect(m('m').materialized).toBe('table');
  });

  test('seeds: folder configs merge (column_types too), the properties yml adds tags', () => {
    expect(p.seeds.get('a')!.config).toEqual({ column_types: { id: 'Int32' }, quote_columns: true, delimiter: ';', tags: ['raw', 'yml_seed'], enabled: true });
    expect(p.seeds.get('b')!.config).toMatchObject({ column_types: { id: 'Int32', code: 'varchar(8)' }, quote_columns: false, delimiter: ';' });
  });

  test('tests: the most specific folder wins; a severity the yml gives wins over folders', () => {
    const t = (n: string) => p.tests.get(n)!;
    expect(t('unique_stg_one_id').severity).toBe('error');
    expect(t('not_null_stg_one_id').severity).toBe('warn');
    expect(t('not_null_m_id').severity).toBe('warn');
    expect(t('t').severity).toBe('warn');
    expect(t('unique_a_id')).toMatchObject({ model: 'a', refs: ['a'] });
  });

  test('every key read but not applied is a warning naming where it is; nothing is dropped silently', () => {
    const w = p.warnings.map((x) => x.message);
    for (const re of [
      /^models: dbt_project\.yml: models\.other_pkg applies to no model: no such folder or file \(the first level under models: is the project's name, shop\)$/,
      /^models: dbt_project\.yml: models\.shop\.marts: \+schema is not applied \(Tributary builds every node in the target's one database/,
      /^models: dbt_project\.yml: models\.shop\.marts: unknown config key \+unknown_thing \(models take \+materialized/,
      /^models: dbt_project\.yml: tests\.shop\.staging: \+store_failures is not applied/,
      /^models: models\/staging\/schema\.yml: stg_two\.config: unknown config key colour/,
      /^models: models\/staging\/stg_three\.sql: config\(\): config persist_docs is not applied/,
    ]) expect(w.filter((x) => re.test(x)), String(re)).toHaveLength(1);
    expect(p.warnings.length).toBe(6);
  });

  test('a folder path that matches nothing and an unknown top-level key are warnings', () => {
    const q = parseProject('/x', { 'dbt_project.yml': 'name: shop\nmodel-paths: ["transform"]\nmodels:\n  shop:\n    stagign:\n      +materialized: view\n', 'models/staging/a.sql': 'SELECT 1 AS x\n' });
    expect(q.warnings.map((x) => x.message)).toEqual([
      'models: dbt_project.yml: model-paths is not applied: Tributary reads models/ only',
      'models: dbt_project.yml: models.shop.stagign applies to no model: no such folder or file',
    ]);
    expect(q.models.get('a')!.config.materialized).toBe('view');
  });

  test('+enabled: false in a folder leaves its models and their tests out of every selection', () => {
    const q = parseProject('/x', { ...FILES, 'dbt_project.yml': PROJECT.replace('      +tags: [stg]\n', '      +tags: [stg]\n      +enabled: false\n') });
    const chosen = selectNodes(q, buildGraph(q), []);
    expect(chosen.has('model:stg_one')).toBe(false);
    expect(chosen.has('test:unique_stg_one_id')).toBe(false);
    expect(chosen.has('model:top')).toBe(true);
  });
});

describe('seeds in the graph and in selection', () => {
  const p = parseProject('/x', FILES);
  const g = buildGraph(p);
  const sel = (s: string[], e: string[] = []) => [...selectNodes(p, g, s, e)].sort();

  test('ref() to a seed is an edge seed → model; seeds come first in the order', () => {
    expect(g.parents.get('model:stg_one')).toEqual(['seed:a']);
    expect(g.order.slice(0, 2)).toEqual(['seed:a', 'seed:b']);
  });

  test('resource_type:seed, a seed name with +, tag: and path: reach seeds', () => {
    expect(sel(['resource_type:seed'])).toEqual(['seed:a', 'seed:b', 'test:unique_a_id']);
    expect(sel(['a+'])).toEqual(['model:m', 'model:stg_one', 'seed:a', 'test:not_null_m_id', 'test:not_null_stg_one_id', 'test:t', 'test:unique_a_id', 'test:unique_stg_one_id']);
    expect(sel(['tag:raw'], ['a'])).toEqual(['seed:b']);
    expect(sel(['path:seeds/lookups'])).toEqual(['seed:b']);
    expect(sel(['config.materialized:seed'], ['resource_type:test'])).toEqual(['seed:a', 'seed:b']);
    expect(sel(['+stg_one'])).toEqual(['model:stg_one', 'seed:a', 'test:not_null_stg_one_id', 'test:unique_a_id', 'test:unique_stg_one_id']);
  });

  test('enabled: false in a seed\'s properties leaves it and its tests out', () => {
    const q = parseProject('/x', { ...FILES, 'seeds/schema.yml': FILES['seeds/schema.yml'].replace('{tags: [yml_seed]}', '{tags: [yml_seed], enabled: false}') });
    expect([...selectNodes(q, buildGraph(q), ['resource_type:seed'])].sort()).toEqual(['seed:b']);
  });

  test('a seed and a model of one name are an error', () => {
    const q = parseProject('/x', { 'seeds/a.csv': 'id\n1\n', 'models/a.sql': 'SELECT 1 AS id\n' });
    expect(q.errors.map((e) => e.message)).toEqual(['models: a is both a model (models/a.sql) and a seed (seeds/a.csv); ref() could not tell them apart']);
  });
});
