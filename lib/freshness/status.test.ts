// The status computation and where expectations come from (issue 24), pure.
import { describe, expect, it } from 'vitest';
import { parseTablesConfig, parseTablesSettings } from '../config/tables-json';
import { assembleExpectations } from './expectations';
import { parseYmlFreshness } from './schema-yml-freshness';
import { alertsOnTransition } from './check';
import { computeFreshness, statusOf, type AssetExpectation, type FreshnessObservations, type FreshnessStatus } from './status';

const NOW = new Date('2026-06-01T12:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);
const H = 3600;

describe('statusOf', () => {
  const both = { warnAfterS: 2 * H, errorAfterS: 6 * H };
  const cases: [string, number | null, { warnAfterS: number | null; errorAfterS: number | null }, FreshnessStatus][] = [
    ['fresh', 60, both, 'pass'],
    ['exactly warn_after is not older than it', 2 * H, both, 'pass'],
    ['past warn', 2 * H + 1, both, 'warn'],
    ['exactly error_after warns', 6 * H, both, 'warn'],
    ['past error', 6 * H + 1, both, 'error'],
    ['never loaded', null, both, 'unknown'],
    ['warn only, very old', 100 * H, { warnAfterS: H, errorAfterS: null }, 'warn'],
    ['error only, past it', 2 * H, { warnAfterS: null, errorAfterS: H }, 'error'],
    ['error only, before it', 30 * 60, { warnAfterS: null, errorAfterS: H }, 'pass'],
  ];
  it.each(cases)('%s', (_n, lag, e, want) => expect(statusOf(lag, e)).toBe(want));
});

describe('computeFreshness', () => {
  const exp = (kind: 'lake_table' | 'model', name: string, warn: number | null, error: number | null): AssetExpectation =>
    ({ asset: `${kind === 'lake_table' ? 'lake' : 'model'}:${name}`, kind, name, expectation: { warnAfterS: warn, errorAfterS: error }, declaredIn: 'tables.json' });
  const obs: FreshnessObservations = {
    lakeLoads: [
      { table: 'etl.customers', branch: 'B1', lastSuccessAt: ago(10 * 60) },
      { table: 'etl.customers', branch: 'B2', lastSuccessAt: ago(3 * H) },
      { table: 'etl.orders', branch: 'B1', lastSuccessAt: ago(60) },
      { table: 'etl.orders', branch: 'B3', lastSuccessAt: null },
      { table: 'etl.visits', branch: 'B1', lastSuccessAt: null },
      { table: 'ETL.Stock', branch: 'B1', lastSuccessAt: ago(7 * H) },
    ],
    modelBuilds: [{ model: 'daily_sales', lastSuccessAt: ago(30 * H) }],
  };
  const cases: [string, AssetExpectation, Partial<ReturnType<typeof computeFreshness>[number]>][] = [
    ['a table is as stale as its stalest branch', exp('lake_table', 'etl.customers', 2 * H, 6 * H), { status: 'warn', lagSeconds: 3 * H, worstBranch: 'B2', lastSuccessAt: ago(3 * H).toISOString() }],
    ['a branch never loaded is listed, not counted in the lag', exp('lake_table', 'etl.orders', 2 * H, null), { status: 'pass', lagSeconds: 60, worstBranch: 'B1', branchesNeverLoaded: ['B3'] }],
    ['no branch ever loaded', exp('lake_table', 'etl.visits', H, 2 * H), { status: 'unknown', lagSeconds: null, worstBranch: null, branchesNeverLoaded: ['B1'] }],
    ['no control row at all', exp('lake_table', 'etl.nothing', H, 2 * H), { status: 'unknown', lagSeconds: null, branchesNeverLoaded: [] }],
    ['table names compare case-insensitively', exp('lake_table', 'etl.stock', H, 6 * H), { status: 'error', lagSeconds: 7 * H }],
    ['a model from its last successful build', exp('model', 'daily_sales', 12 * H, 24 * H), { status: 'error', lagSeconds: 30 * H, worstBranch: null }],
    ['a model never built', exp('model', 'weekly', 12 * H, null), { status: 'unknown', lagSeconds: null }],
  ];
  it.each(cases)('%s', (_n, e, want) => {
    const [got] = computeFreshness([e], obs, NOW);
    expect(got).toMatchObject({ asset: e.asset, warnAfterSeconds: e.expectation.warnAfterS, errorAfterSeconds: e.expectation.errorAfterS, ...want });
  });
});

describe('alertsOnTransition', () => {
  const cases: [FreshnessStatus | null, FreshnessStatus, boolean][] = [
    [null, 'warn', true], [null, 'error', true], [null, 'pass', false], [null, 'unknown', false],
    ['pass', 'warn', true], ['pass', 'error', true], ['warn', 'error', true], ['unknown', 'error', true],
    ['warn', 'warn', false], ['error', 'error', false], ['error', 'warn', false], ['warn', 'pass', false], ['error', 'pass', false],
  ];
  it.each(cases)('%s → %s alerts: %s', (from, to, want) => expect(alertsOnTransition(from, to)).toBe(want));
});

describe('expectations from tables.json and schema.yml', () => {
  const yml = parseYmlFreshness([
    {
      path: 'models/sources.yml', text: `
version: 2
sources:
  - name: etl
    loaded_at_field: _loaded_at
    freshness:
      warn_after: {count: 12, period: hour}
      error_after: {count: 24, period: hour}
    tables:
      - name: patients
      - name: doctors
        freshness:
          warn_after: {count: 1, period: hour}
      - name: visits
        freshness: null
      - name: appointments
  - name: lake
    tables:
      - name: probe.country
        freshness: {error_after: 2d}
`,
    },
    {
      path: 'models/marts/schema.yml', text: `
version: 2
models:
  - name: daily_sales
    config:
      materialized: table
      freshness:
        warn_after: {count: 6, period: hour}
        error_after: 1d
  - name: no_freshness
    config: {materialized: view}
`,
    },
    { path: 'models/bad.yml', text: 'models:\n  - name: broken\n    config:\n      freshness: {warn_after: {count: 1, period: fortnight}}\n' },
  ]);
  const defs = parseTablesConfig({ tables: [
    { table: 'OASIS.PATIENTS', unique_key: 'ID' },
    { table: 'OASIS.DOCTORS', unique_key: 'ID' },
    { table: 'OASIS.VISITS', unique_key: 'ID' },
    { table: 'OASIS.APPOINTMENTS', unique_key: 'ID', freshness: { warn_after: '30m' } },
    { table: 'OASIS.ROOMS', unique_key: 'ID' },
    { table: 'OASIS.WARDS', unique_key: 'ID', freshness: null },
  ] });
  const settings = parseTablesSettings({ freshness: { warn_after: '3d' }, tables: [] });

  it('picks the entry, then schema.yml (table over source, null switching off), then the file default', () => {
    const got = assembleExpectations(defs, settings, yml).map((e) => [e.asset, e.expectation.warnAfterS, e.expectation.errorAfterS, e.declaredIn]);
    expect(got).toEqual([
      ['lake:etl.appointments', 1800, null, 'tables.json'],
      ['lake:etl.doctors', 3600, null, 'schema.yml'],
      ['lake:etl.patients', 12 * H, 24 * H, 'schema.yml'],
      ['lake:etl.rooms', 3 * 86_400, null, 'tables.json default'],
      ['lake:probe.country', null, 2 * 86_400, 'schema.yml'],
      ['model:daily_sales', 6 * H, 24 * H, 'schema.yml'],
    ]);
  });
  it('reports a bad schema.yml block naming the file, the model and the field, and skips only it', () => {
    expect(yml.problems).toEqual([expect.stringMatching(/^models\/bad\.yml: models\[0\] \(broken\): field config\.freshness\.warn_after: period must be minute, hour or day/)]);
    expect(yml.models.has('broken')).toBe(false);
  });
});
