import { describe, expect, test } from 'vitest';
import { buildGraph } from './graph';
import { parseProject } from './project';
import { selectNodes } from './selector';
import { readProjectFiles } from './project-dir';
import { writeProject } from './test-project';

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
      'models: dbt_project.yml: model-paths is not applied: Tributary reads models/ only; the files under transform/ are not read',
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

  test('enabled given as text in a properties yml is read as dbt reads it ("false" was enabled); other text is an error', () => {
    const q = parseProject('/x', { ...FILES, 'seeds/schema.yml': FILES['seeds/schema.yml'].replace('{tags: [yml_seed]}', '{tags: [yml_seed], enabled: "False"}') });
    expect([...selectNodes(q, buildGraph(q), ['resource_type:seed'])].sort()).toEqual(['seed:b']);
    const bad = parseProject('/x', { ...FILES, 'seeds/schema.yml': FILES['seeds/schema.yml'].replace('{tags: [yml_seed]}', '{tags: [yml_seed], enabled: "nope"}') });
    expect(bad.errors.map((e) => e.message).join('\n')).toMatch(/enabled must be true or false, got "nope"/);
  });

  test('a seed and a model of one name are an error', () => {
    const q = parseProject('/x', { 'seeds/a.csv': 'id\n1\n', 'models/a.sql': 'SELECT 1 AS id\n' });
    expect(q.errors.map((e) => e.message)).toEqual(['models: a is both a model (models/a.sql) and a seed (seeds/a.csv); ref() could not tell them apart']);
  });
});

describe('dbt_project.yml rendered as dbt renders it', () => {
  // dbt-labs/jaffle-shop's own dbt_project.yml, as published
  const JAFFLE = `config-version: 2
name: "jaffle_shop"
version: "3.0.0"
dbt-cloud:
  project-id: 275557
seeds:
  jaffle_shop:
    +schema: raw
    jaffle-data:
      +enabled: "{{ var('load_source_data', false) }}"
`;
  const files = { 'dbt_project.yml': JAFFLE, 'seeds/jaffle-data/raw_orders.csv': 'id\n1\n', 'seeds/other.csv': 'id\n1\n' };
  const enabled = (p: ReturnType<typeof parseProject>) => Object.fromEntries([...p.seeds.values()].map((s) => [s.name, s.config.enabled]));

  test("jaffle-shop: +enabled: \"{{ var('load_source_data', false) }}\" disables its seeds unless --vars sets it", () => {
    const p = parseProject('/x', files);
    expect(p.errors).toEqual([]);
    expect(enabled(p)).toEqual({ raw_orders: false, other: true });
    expect(enabled(parseProject('/x', files, { load_source_data: true }))).toEqual({ raw_orders: true, other: true });
    // dbt-cloud: is dbt's own key (no effect here, nothing to warn about)
    expect(p.warnings.map((w) => w.message).filter((m) => /dbt-cloud/.test(m))).toEqual([]);
  });

  test("enabled as a string is true/false in any case; other text is an error; project vars are not seen (dbt renders with --vars only)", () => {
    const yml = (v: string) => ({ ...files, 'dbt_project.yml': `name: jaffle_shop\nvars:\n  on: true\nseeds:\n  jaffle_shop:\n    jaffle-data:\n      +enabled: ${v}\n` });
    expect(enabled(parseProject('/x', yml('"FALSE"'))).raw_orders).toBe(false);
    expect(enabled(parseProject('/x', yml("\"{{ 'True' }}\""))).raw_orders).toBe(true);
    expect(parseProject('/x', yml('"sometimes"')).errors.map((e) => e.message)).toEqual([expect.stringMatching(/dbt_project\.yml: seeds\.jaffle_shop\.jaffle-data\.\+enabled: enabled must be true or false, got "sometimes"/)]);
    expect(parseProject('/x', yml('"{{ var(\'on\') }}"')).errors.map((e) => e.message)).toEqual([expect.stringMatching(/var\("on"\) is not set and has no default \(dbt_project\.yml is rendered with the command line's --vars only/)]);
  });

  test('env_var() reads DBT_ variables handed in, never any other; target is not offered', () => {
    const yml = (v: string) => ({ 'dbt_project.yml': `name: shop\nmodels:\n  shop:\n    +tags: ["${v}"]\n`, 'models/a.sql': 'SELECT 1 AS x\n' });
    const env = { DBT_TEAM: 'finance' };
    expect(parseProject('/x', yml("{{ env_var('DBT_TEAM') }}"), {}, { env }).models.get('a')!.config.tags).toEqual(['finance']);
    expect(parseProject('/x', yml("{{ env_var('DBT_NONE', 'dflt') }}"), {}, { env }).models.get('a')!.config.tags).toEqual(['dflt']);
    for (const name of ['DATABASE_URL', 'TRIBUTARY_SECRET', 'AWS_SECRET_ACCESS_KEY', 'DBT_ENV_SECRET_TOKEN']) {
      // even with the variable in what is handed in, and a default: an error, not the default
      const p = parseProject('/x', yml(`{{ env_var('${name}', 'dflt') }}`), {}, { env: { ...env, [name]: 'leak' } });
      expect(p.errors.map((e) => e.message)).toEqual([expect.stringMatching(new RegExp(`env_var\\("${name}"\\): Tributary's env_var reads only variables named DBT_`))]);
    }
    expect(parseProject('/x', yml('{{ env_var(\'DBT_NONE\') }}')).errors.map((e) => e.message)).toEqual([expect.stringMatching(/env_var\("DBT_NONE"\): the variable is not set and no default was given/)]);
    expect(parseProject('/x', yml('{{ target.name }}')).errors.map((e) => e.message)).toEqual([expect.stringMatching(/'target' is undefined/)]);
  });

  test('vars are not rendered when dbt_project.yml is read, and on-run-start is left as written', () => {
    const p = parseProject('/x', { 'dbt_project.yml': "name: shop\nvars:\n  later: \"{{ var('x') }}\"\non-run-start: [\"{{ nope() }}\"]\n", 'models/a.sql': 'SELECT 1 AS x\n' });
    expect(p.errors).toEqual([]);
    expect(p.vars.later).toBe("{{ var('x') }}");
  });
});

describe('project-scoped vars, as dbt scopes them', () => {
  const files = {
    'dbt_project.yml': 'name: jaffle_shop\nvars:\n  jaffle_shop:\n    min_amount: 5\n  other_pkg:\n    min_amount: 7\n  global_var: hello\n  min_amount: 1\n',
    'models/a.sql': "{{ config(tags=[var('global_var'), 'min_' ~ var('min_amount')]) }}\nSELECT 1 AS x\n",
  };
  test("the project's own scope over globals; --vars over both", () => {
    expect(parseProject('/x', files).models.get('a')!.config.tags).toEqual(['hello', 'min_5']);
    expect(parseProject('/x', files, { min_amount: 9, global_var: 'bye' }).models.get('a')!.config.tags).toEqual(['bye', 'min_9']);
  });
});

describe('properties yml entries, as dbt takes them', () => {
  const base = { 'models/a.sql': 'SELECT 1 AS id\n' };
  test('an entry for a model that does not exist is a warning (its tests left out), not an error', () => {
    const p = parseProject('/x', { ...base, 'models/schema.yml': 'version: 2\nmodels:\n  - name: nope\n    columns:\n      - name: id\n        tests: [unique]\n  - name: a\n' });
    expect(p.errors).toEqual([]);
    expect(p.warnings.map((w) => w.message)).toEqual(["models: Did not find matching node for patch with name 'nope' in the 'models' section of file 'models/schema.yml' (its 1 test(s) are left out)"]);
    expect([...p.tests.keys()]).toEqual([]);
  });
  test('two entries for one model are an error naming both files', () => {
    const p = parseProject('/x', { ...base, 'models/one.yml': 'models:\n  - name: a\n', 'models/sub/two.yml': 'models:\n  - name: a\n    description: again\n' });
    expect(p.errors.map((e) => e.message)).toEqual(['models: model a is described twice: in models/one.yml and models/sub/two.yml (dbt takes one properties entry per model; remove one)']);
  });
});

describe('what a dbt project holds that Tributary does not apply is a warning', () => {
  test('the project folder\'s packages.yml and dependencies.yml are read (to be warned about)', () => {
    const dir = writeProject({ 'packages.yml': 'packages: []\n', 'dependencies.yml': 'projects: []\n', 'models/a.sql': 'SELECT 1\n' });
    try { expect(Object.keys(readProjectFiles(dir.root)).sort()).toEqual(['dependencies.yml', 'models/a.sql', 'packages.yml']); } finally { dir.remove(); }
  });

  test("jaffle-shop: packages.yml, test-paths: [data-tests], yml sources", () => {
    const p = parseProject('/x', {
      'dbt_project.yml': 'name: jaffle_shop\ntest-paths: ["data-tests"]\nmacro-paths: ["macros"]\n',
      'packages.yml': 'packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.3.3\n  - git: "https://github.com/dbt-labs/dbt-audit-helper.git"\n    revision: main\n',
      'dependencies.yml': 'projects:\n  - name: core_platform\n',
      'models/staging/__sources.yml': 'version: 2\nsources:\n  - name: ecom\n    schema: raw\n    tables:\n      - name: raw_orders\n',
      'models/a.sql': "SELECT * FROM {{ source('ecom', 'raw_orders') }}\n",
    });
    expect(p.errors).toEqual([]);
    expect(p.warnings.map((w) => w.message)).toEqual([
      'models: dbt_project.yml: test-paths is not applied: Tributary reads tests/ only; the files under data-tests/ are not read',
      'models: packages.yml: packages are not installed: dbt-labs/dbt_utils 1.3.3; https://github.com/dbt-labs/dbt-audit-helper.git main; their macros are undefined here (a call such as dbt_utils.star() fails as undefined)',
      'models: dependencies.yml: projects are not read: core_platform (a cross-project ref() fails)',
      "models: models/staging/__sources.yml: sources: ecom are not read: source('ecom', 'tbl') reads the lake table ecom.tbl (namespace ecom); a yml source's schema, identifier, tests and freshness are not applied",
    ]);
  });
});
