// Freshness expectations in tables.json (issue 24): both duration forms, the
// order of thresholds, and messages naming the entry and the field.
import { describe, expect, it } from 'vitest';
import { parseDuration, parseFreshnessAlerts, parseFreshnessBlock } from './freshness';
import { parseTablesConfig, parseTablesSettings } from './tables-json';
import { saveTablesFile } from './tables-file';

describe('parseDuration', () => {
  const cases: [unknown, number | RegExp][] = [
    ['2h', 7200], ['30m', 1800], ['1d', 86_400], ['45s', 45], [' 1.5h ', 5400],
    [{ count: 12, period: 'hour' }, 43_200], [{ count: 30, period: 'minute' }, 1800], [{ count: 2, period: 'day' }, 172_800],
    ['2 hours', /must be a duration like "30m"/], ['h', /must be a duration/], ['0m', /longer than 0/], [7200, /must be a duration/],
    [{ count: 2, period: 'week' }, /period must be minute, hour or day, got "week"/], [{ count: 2, period: 'second' }, /period must be minute, hour or day/],
    [{ count: -1, period: 'hour' }, /count must be a number > 0/], [{ count: '2', period: 'hour' }, /count must be a number > 0/],
    [{ count: 2, period: 'hour', unit: 'x' }, /unknown field "unit"/],
  ];
  it.each(cases)('%j → %s', (input, want) => {
    const got = parseDuration(input);
    if (typeof want === 'number') expect(got).toBe(want); else expect(got).toMatch(want);
  });
});

describe('parseFreshnessBlock', () => {
  const cases: [string, unknown, { warnAfterS: number | null; errorAfterS: number | null } | null, RegExp | null][] = [
    ['short forms', { warn_after: '2h', error_after: '6h' }, { warnAfterS: 7200, errorAfterS: 21_600 }, null],
    ['dbt forms', { warn_after: { count: 12, period: 'hour' }, error_after: { count: 1, period: 'day' } }, { warnAfterS: 43_200, errorAfterS: 86_400 }, null],
    ['warn only', { warn_after: '30m' }, { warnAfterS: 1800, errorAfterS: null }, null],
    ['error only, dbt null count for warn', { warn_after: { count: null, period: null }, error_after: '1d' }, { warnAfterS: null, errorAfterS: 86_400 }, null],
    ['null switches off', null, null, null],
    ['neither threshold', {}, null, /field freshness: needs warn_after or error_after/],
    ['error before warn', { warn_after: '6h', error_after: '2h' }, null, /field freshness\.error_after: must be at least warn_after/],
    ['bad duration', { warn_after: '2 hours' }, null, /field freshness\.warn_after: must be a duration/],
    ['unknown key', { warn_after: '2h', stale_after: '3h' }, null, /field freshness: unknown field "stale_after"/],
    ['not an object', '2h', null, /field freshness: must be an object/],
  ];
  it.each(cases)('%s', (_name, raw, value, problem) => {
    const r = parseFreshnessBlock(raw, 'freshness');
    if (problem) { expect(r.problems.join('\n')).toMatch(problem); expect(r.value).toBeNull(); } else { expect(r.problems).toEqual([]); expect(r.value).toEqual(value); }
  });
});

describe('tables.json freshness', () => {
  const t = { table: 'OASIS.PATIENTS', unique_key: 'ID' };
  it('keeps an entry\'s own expectation, a null that switches it off, and nothing when the entry is silent', () => {
    const defs = parseTablesConfig({ freshness: { warn_after: '1d' }, tables: [
      { ...t, freshness: { warn_after: '2h', error_after: { count: 6, period: 'hour' } } },
      { ...t, table: 'OASIS.DOCTORS', freshness: null },
      { ...t, table: 'OASIS.VISITS' },
    ] });
    expect(defs.map((d) => d.freshness)).toEqual([{ warnAfterS: 7200, errorAfterS: 21_600 }, null, undefined]);
  });
  it('reads the file-wide default and alert settings', () => {
    const s = parseTablesSettings({ freshness: { error_after: '6h' }, freshness_alerts: { recipients: ['ops@example.com'], smtp_connection: 'relay' }, tables: [t] });
    expect(s).toEqual({ freshness: { warnAfterS: null, errorAfterS: 21_600 }, freshnessAlerts: { recipients: ['ops@example.com'], smtp_connection: 'relay' } });
    expect(parseTablesSettings([t])).toEqual({ freshness: null, freshnessAlerts: null });
  });
  const refused: [string, unknown, RegExp][] = [
    ['entry threshold order', [{ ...t, freshness: { warn_after: '6h', error_after: '2h' } }], /entry 0 \(OASIS\.PATIENTS\): field freshness\.error_after: must be at least warn_after/],
    ['entry bad period', [{ ...t, freshness: { warn_after: { count: 1, period: 'fortnight' } } }], /entry 0 \(OASIS\.PATIENTS\): field freshness\.warn_after: period must be minute, hour or day/],
    ['entry unknown key', [{ ...t, freshness: { warn: '2h' } }], /field freshness: unknown field "warn"/],
    ['top-level default', { freshness: { warn_after: 'soon' }, tables: [t] }, /tables\.json: field freshness\.warn_after: must be a duration/],
    ['alerts: bad address', { freshness_alerts: { recipients: ['not-mail'] }, tables: [t] }, /tables\.json: field freshness_alerts\.recipients\.0: not an e-mail address/],
    ['alerts: empty', { freshness_alerts: { recipients: [] }, tables: [t] }, /field freshness_alerts\.recipients: needs at least one address/],
    ['alerts: unknown key', { freshness_alerts: { recipients: ['a@b.io'], to: 'x' }, tables: [t] }, /field freshness_alerts: unknown field "to"/],
  ];
  it.each(refused)('refuses %s, naming the field', (_n, raw, message) => {
    expect(() => parseTablesConfig(raw)).toThrow(message);
  });
  it('the Tables page\'s save names the bad freshness field', async () => {
    const fs = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'trb-fresh-cfg-'));
    try {
      await expect(saveTablesFile(path.join(dir, 'tables.json'), [t, { ...t, table: 'OASIS.DOCTORS', freshness: { warn_after: 'x' } }], ''))
        .rejects.toMatchObject({ code: 'validation', field: 'tables[1].freshness' });
    } finally { await fs.rm(dir, { recursive: true, force: true }); }
  });
  it('parseFreshnessAlerts: absent means no alerts', () => {
    expect(parseFreshnessAlerts(undefined)).toEqual({ value: null, problems: [] });
  });
});
