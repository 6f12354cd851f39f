import { describe, expect, test } from 'vitest';
import { parseCliVars } from './cli-vars';
import { ModelsPayload } from './jobs';

// dbt's --vars is YAML (dbt-core's parse_cli_vars): the forms its docs show, and JSON.

describe('--vars', () => {
  test("dbt's documented forms: a flow mapping, a one-line mapping, JSON", () => {
    expect(parseCliVars('{key: value, date: 20180101}')).toEqual({ key: 'value', date: 20180101 });
    expect(parseCliVars('key: 42')).toEqual({ key: 42 });
    expect(parseCliVars('{"days": 7, "on": true}')).toEqual({ days: 7, on: true });
    expect(parseCliVars('{load_source_data: true}')).toEqual({ load_source_data: true });
  });

  test('anything but a mapping is refused, saying what it got', () => {
    expect(() => parseCliVars('nope')).toThrow(/^models: --vars must be a YAML mapping, e.g. '\{days: 7\}' or 'days: 7' \(got the string "nope"\)$/);
    expect(() => parseCliVars('[1, 2]')).toThrow(/must be a YAML mapping.*\(got a list\)/);
    expect(() => parseCliVars('')).toThrow(/must be a YAML mapping.*\(got nothing\)/);
    expect(() => parseCliVars('{a: 1')).toThrow(/^models: --vars is not valid YAML/);
  });

  test("a models job's vars: an object, or a string read as --vars is", () => {
    expect(ModelsPayload.parse({ vars: '{min_amount: 5}' }).vars).toEqual({ min_amount: 5 });
    expect(ModelsPayload.parse({ vars: { min_amount: 5 } }).vars).toEqual({ min_amount: 5 });
    const bad = ModelsPayload.safeParse({ vars: '42' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ['vars'], message: expect.stringMatching(/--vars must be a YAML mapping/) });
  });
});
