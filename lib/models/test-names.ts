import crypto from 'node:crypto';

/**
 * Generic test names as dbt builds them (dbt-core's
 * `parser/generic_test_builders.py`, `synthesize_generic_test_names`), so a
 * project's tests keep the names its users, CI checks and dbt artifacts know:
 * `<test>_<model>_<args>`, the test's arguments (its config keys left out)
 * sorted by name, each value (a list's items, a mapping's values) turned
 * into a string and every run of other characters than `[0-9a-zA-Z_]` made
 * one `_`, joined by `__`.
 *
 * dbt keeps that full name as the test's name (and unique_id and fqn); when it
 * is 64 characters or longer, the compiled file and the relation (`alias`)
 * are named by a short form instead: the first 30 characters of
 * `<test>_<model>` and the md5 of the full name.
 */

/** Keys of a test entry that are configs, not arguments (dbt's TestBuilder.CONFIG_ARGS). */
export const TEST_CONFIG_ARGS = ['severity', 'tags', 'enabled', 'where', 'limit', 'warn_if', 'error_if', 'fail_calc', 'store_failures', 'store_failures_as', 'meta', 'database', 'schema', 'alias'];

/** Python's `str()` of a YAML scalar, as dbt's name synthesis applies it. */
export function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'object') return pyRepr(v);
  return String(v);
}

/** Python's `repr()` of plain data (str, int, float, bool, None, list, dict). */
export function pyRepr(v: unknown): string {
  if (typeof v === 'string') {
    // Python quotes with ' unless the text holds a ' and no "
    const q = v.includes("'") && !v.includes('"') ? '"' : "'";
    return q + v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t').replace(q === "'" ? /'/g : /"/g, `\\${q}`) + q;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  return pyStr(v);
}

export const md5 = (s: string) => crypto.createHash('md5').update(s, 'utf8').digest('hex');

/**
 * `[short, full]` for test `testType` on `target` (a model's name, or
 * `source_<test>` style names for sources) with `args` (column_name included,
 * model and configs not).
 */
export function synthesizeTestNames(testType: string, target: string, args: Record<string, unknown>): { short: string; full: string } {
  const flat: string[] = [];
  for (const k of Object.keys(args).sort()) {
    if (k === 'model') continue;
    const v = args[k];
    const parts = Array.isArray(v) ? v : v && typeof v === 'object' ? Object.values(v) : [v];
    for (const p of parts) flat.push(pyStr(p));
  }
  const unique = flat.map((a) => a.replace(/[^0-9a-zA-Z_]+/g, '_')).join('__');
  const identifier = `${testType}_${target}`;
  const full = `${identifier}_${unique}`;
  const short = full.length >= 64 ? `${identifier.slice(0, 30)}_${md5(full)}` : full;
  return { short, full };
}

/**
 * The 10-character suffix of a generic test's unique_id
 * (`test.<project>.<name>.<hash>`): md5 of its name and the repr of its
 * test_metadata with keys sorted and scalars as strings, as dbt's
 * schema_generic_tests.py does.
 */
export function testHash(name: string, metadata: Record<string, unknown>): string {
  const hashable = (d: unknown): unknown => {
    if (Array.isArray(d)) return d.map(hashable);
    if (d && typeof d === 'object') return Object.fromEntries(Object.keys(d).sort().map((k) => [k, hashable((d as Record<string, unknown>)[k])]));
    return pyStr(d);
  };
  return md5(name + pyRepr(hashable(metadata))).slice(-10);
}
