import YAML from 'yaml';
import { AppError } from '../errors';
import { configKeyWarnings, type Warning } from './project-config';
import { checkQuerySettings } from './session-settings';
import { synthesizeTestNames, TEST_CONFIG_ARGS } from './test-names';
import { thresholdsOf } from './test-status';
import { ON_SCHEMA_CHANGE, type ColumnDoc, type GenericTestType, type ModelConfig, type OnSchemaChange, type SeedConfig, type TestNode } from './types';

/** A generic test as its yml gives it; severitySet: the yml named a severity (it then wins over dbt_project.yml's tests:). */
export type YmlTest = TestNode & { severitySet: boolean };

/** What one schema.yml says about the models and seeds it names. */
export interface SchemaYml {
  models: { name: string; description?: string; columns: ColumnDoc[]; config: Partial<ModelConfig>; tests: YmlTest[] }[];
  seeds: { name: string; description?: string; columns: ColumnDoc[]; config: Partial<SeedConfig>; tests: YmlTest[] }[];
  /** Config keys it sets that Tributary does not apply. */
  warnings: Warning[];
}

const GENERIC: GenericTestType[] = ['not_null', 'unique', 'accepted_values', 'relationships'];

function asObject(v: unknown, where: string): Record<string, unknown> {
  if (v === null || v === undefined) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new AppError('validation', `models: ${where}: expected a mapping`);
  return v as Record<string, unknown>;
}

/** `ref('customers')`, `ref("customers")` or a bare `customers` → customers. */
export function refTarget(to: unknown, where: string): string {
  const s = String(to ?? '').trim();
  const m = /^\{?\{?\s*ref\(\s*['"]([^'"]+)['"]\s*\)\s*\}?\}?$/.exec(s);
  const name = m ? m[1] : s;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new AppError('validation', `models: ${where}: relationships needs to: ref('model'), got ${JSON.stringify(to)}`);
  return name;
}

/**
 * `enabled` as dbt reads it: a boolean, or true/false as text in any case (a quoted `"false"` in a
 * yml, or what a Jinja expression rendered); anything else is an error, never "enabled".
 */
export function enabledValue(v: unknown, where: string): boolean {
  if (typeof v === 'boolean') return v;
  const s = typeof v === 'string' ? v.trim().toLowerCase() : '';
  if (s === 'true' || s === 'false') return s === 'true';
  throw new AppError('validation', `models: ${where}: enabled must be true or false, got ${JSON.stringify(v)}`, { field: 'enabled' });
}

function configOf(raw: Record<string, unknown>, where: string): Partial<ModelConfig> {
  const out: Partial<ModelConfig> = {};
  for (const [k, v] of Object.entries(raw)) {
    const key = k.replace(/^\+/, '');
    if (key === 'materialized') {
      if (v !== 'view' && v !== 'table' && v !== 'incremental') throw new AppError('validation', `models: ${where}: materialized must be view, table or incremental, got ${JSON.stringify(v)}`);
      out.materialized = v;
    } else if (key === 'tags') out.tags = (Array.isArray(v) ? v : [v]).map(String);
    else if (key === 'enabled') out.enabled = enabledValue(v, where);
    else if (key === 'engine' || key === 'partition_by') out[key] = String(v);
    else if (key === 'order_by' || key === 'unique_key') out[key] = Array.isArray(v) ? v.map(String) : String(v);
    else if (key === 'query_settings') out.query_settings = checkQuerySettings(v, where);
    else if (key === 'on_schema_change') {
      if (!ON_SCHEMA_CHANGE.includes(v as OnSchemaChange)) throw new AppError('validation', `models: ${where}: on_schema_change must be ${ON_SCHEMA_CHANGE.join(', ')}, got ${JSON.stringify(v)}`, { field: 'on_schema_change' });
      out.on_schema_change = v as OnSchemaChange;
    }
  }
  return out;
}

/** dbt's seed configs: column_types, quote_columns, delimiter, tags, enabled (others: see project-config.ts). */
function seedConfigOf(raw: Record<string, unknown>, where: string): Partial<SeedConfig> {
  const out: Partial<SeedConfig> = {};
  for (const [k, v] of Object.entries(raw)) {
    const key = k.replace(/^\+/, '');
    if (key === 'column_types') out.column_types = Object.fromEntries(Object.entries(asObject(v, `${where}: column_types`)).map(([c, t]) => [c, String(t)]));
    else if (key === 'quote_columns') out.quote_columns = v !== false;
    else if (key === 'delimiter') {
      if (typeof v !== 'string' || v.length !== 1) throw new AppError('validation', `models: ${where}: delimiter must be one character, got ${JSON.stringify(v)}`, { field: 'delimiter' });
      out.delimiter = v;
    } else if (key === 'tags') out.tags = (Array.isArray(v) ? v : [v]).map(String);
    else if (key === 'enabled') out.enabled = enabledValue(v, where);
  }
  return out;
}

/** A test's configs that Tributary applies, checked. */
export type TestConfig = { severity?: 'error' | 'warn'; where?: string; tags?: string[]; enabled?: boolean } & ReturnType<typeof thresholdsOf>;

/** A test's own configs from dbt_project.yml's tests: or a singular test's config() (severity, where, tags, enabled, fail_calc, warn_if, error_if, limit). */
export function testConfigOf(raw: Record<string, unknown>, where: string): TestConfig {
  const out: TestConfig = thresholdsOf(raw, where);
  for (const [k, v] of Object.entries(raw)) {
    const key = k.replace(/^\+/, '');
    if (key === 'severity') {
      const sev = String(v).toLowerCase();
      if (sev !== 'error' && sev !== 'warn') throw new AppError('validation', `models: ${where}: severity must be error or warn`, { field: 'severity' });
      out.severity = sev;
    } else if (key === 'where') out.where = String(v);
    else if (key === 'tags') out.tags = (Array.isArray(v) ? v : [v]).map(String);
    else if (key === 'enabled') out.enabled = enabledValue(v, where);
  }
  return out;
}

/** A test name that is none of the built-in generic tests: reported once per file with what Tributary runs. */
class UnknownTest extends AppError {}

const NOT_SUPPORTED = `custom generic tests ({% test %} blocks in macros/) and package tests (dbt_utils.…) are not supported; Tributary runs dbt's built-in ${GENERIC.join(', ')}`;

/**
 * One generic test entry (`- unique`, `- accepted_values: {values: [...]}`)
 * → a test node, named as dbt names it (test-names.ts). Under a column, it
 * tests that column; under the model itself (`column` undefined), the column
 * comes from its `column_name:` argument, which may be an SQL expression as
 * dbt allows, and is part of its arguments (and so of its name).
 */
function genericTest(entry: unknown, model: string, column: string | undefined, file: string, warnings: Warning[]): YmlTest {
  const where = column === undefined ? `${file}: ${model}` : `${file}: ${model}.${column}`;
  let type: string; let raw: Record<string, unknown> = {};
  if (typeof entry === 'string') type = entry;
  else {
    const o = asObject(entry, where);
    const keys = Object.keys(o);
    if (keys.length !== 1) throw new AppError('validation', `models: ${where}: a test is a name or a one-key mapping, got ${JSON.stringify(entry)}`);
    type = keys[0]; raw = asObject(o[type], `${where}.${type}`);
  }
  if (!GENERIC.includes(type as GenericTestType)) throw new UnknownTest('validation', `models: ${where}: unknown test ${JSON.stringify(type)}`);
  // dbt 1.10's `arguments:` holds the test's arguments apart from its configs
  const { arguments: argBlock, config: cfgBlock, name: customName, description, ...rest } = { ...raw, ...asObject(raw.arguments, `${where}.${type}.arguments`) } as Record<string, unknown>;
  void argBlock;
  const cfg: Record<string, unknown> = { ...asObject(cfgBlock, `${where}.${type}.config`) };
  const args: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) if (TEST_CONFIG_ARGS.includes(k)) cfg[k] = v; else args[k] = v;
  warnings.push(...configKeyWarnings('tests', cfg, file, `${where}: ${type}`));
  const severity = String(cfg.severity ?? 'error').toLowerCase();
  if (severity !== 'error' && severity !== 'warn') throw new AppError('validation', `models: ${where}: severity must be error or warn`);
  const thresholds = thresholdsOf(cfg, `${where}: ${type}`);
  const t = type as GenericTestType;
  if (column !== undefined) args.column_name = column;
  else if (typeof args.column_name !== 'string' || !args.column_name.trim()) throw new AppError('validation', `models: ${where}: ${type} at model level needs column_name: (a column or an expression)`);
  const col = String(args.column_name);
  const names = synthesizeTestNames(t, model, args);
  const name = customName === undefined ? names.full : String(customName);
  const node: YmlTest = {
    severitySet: cfg.severity !== undefined,
    kind: 'test', name, alias: customName === undefined ? names.short : name, path: file, model, refs: [model], sources: [],
    severity, where: cfg.where === undefined ? undefined : String(cfg.where), enabled: cfg.enabled === undefined ? undefined : enabledValue(cfg.enabled, `${where}: ${type}`),
    tags: (Array.isArray(cfg.tags) ? cfg.tags : cfg.tags ? [cfg.tags] : []).map(String),
    generic: { type: t, column: col, ...(column === undefined ? { modelLevel: true } : {}) }, args, ...thresholds,
    description: description === undefined ? undefined : String(description),
  };
  if (t === 'accepted_values') {
    if (!Array.isArray(args.values) || args.values.length === 0) throw new AppError('validation', `models: ${where}: accepted_values needs values: [..]`);
    node.generic!.values = args.values; node.generic!.quote = args.quote !== false;
  }
  if (t === 'relationships') {
    const to = refTarget(args.to, where);
    const field = String(args.field ?? '');
    if (!field) throw new AppError('validation', `models: ${where}: relationships needs field:`);
    node.generic!.to = to; node.generic!.field = field;
    node.refs = [model, to];
  }
  return node;
}

/** Parse one schema.yml (dbt version 2 layout: models / seeds → tests / data_tests, and columns → tests / data_tests). */
export function parseSchemaYml(text: string, file: string): SchemaYml {
  let doc: unknown;
  try { doc = YAML.parse(text); } catch (e) { throw new AppError('validation', `models: ${file}: ${(e as Error).message.split('\n')[0]}`); }
  const root = asObject(doc, file);
  const warnings: Warning[] = [];
  // every test of the file is read, and all that cannot be (unknown ones above all) reported together
  const problems: AppError[] = [];
  const collect = (read: () => void) => {
    try { read(); } catch (e) { if (e instanceof AppError) problems.push(e); else throw e; }
  };
  const entries = (key: 'models' | 'seeds') => {
    const list = root[key] ?? [];
    if (!Array.isArray(list)) throw new AppError('validation', `models: ${file}: ${key} must be a list`);
    return list.map((m, i) => {
      const o = asObject(m, `${file}: ${key}[${i}]`);
      const name = String(o.name ?? '');
      if (!name) throw new AppError('validation', `models: ${file}: ${key}[${i}] has no name`);
      const tests: YmlTest[] = []; const columns: ColumnDoc[] = [];
      const cols = o.columns ?? [];
      if (!Array.isArray(cols)) throw new AppError('validation', `models: ${file}: ${name}.columns must be a list`);
      // the model's own tests (dbt: model-level data_tests), then its columns'
      const own = o.data_tests ?? o.tests ?? [];
      if (!Array.isArray(own)) throw new AppError('validation', `models: ${file}: ${name}.tests must be a list`);
      for (const t of own) collect(() => tests.push(genericTest(t, name, undefined, file, warnings)));
      for (const c of cols) {
        const co = asObject(c, `${file}: ${name}.columns`);
        const col = String(co.name ?? '');
        if (!col) throw new AppError('validation', `models: ${file}: a column of ${name} has no name`);
        const list = co.data_tests ?? co.tests ?? [];
        if (!Array.isArray(list)) throw new AppError('validation', `models: ${file}: ${name}.${col}.tests must be a list`);
        for (const t of list) collect(() => tests.push(genericTest(t, name, col, file, warnings)));
        columns.push({ name: col, description: co.description === undefined || co.description === null ? undefined : String(co.description), data_type: co.data_type === undefined || co.data_type === null ? undefined : String(co.data_type) });
      }
      const config = asObject(o.config, `${file}: ${name}.config`);
      warnings.push(...configKeyWarnings(key, config, file, `${file}: ${name}.config`));
      return { name, description: o.description === undefined || o.description === null ? undefined : String(o.description), columns, config, tests };
    });
  };
  const models = entries('models').map((m) => ({ ...m, config: configOf(m.config, `${file}: ${m.name}`) }));
  const seeds = entries('seeds').map((m) => ({ ...m, config: seedConfigOf(m.config, `${file}: ${m.name}`) }));
  if (problems.length) {
    const unknown = problems.some((e) => e instanceof UnknownTest);
    throw new AppError('validation', `${problems.map((e) => e.message).join('; ')}${unknown ? ` — ${NOT_SUPPORTED}` : ''}`);
  }
  return { models, seeds, warnings };
}

/** dbt_project.yml: its name, `vars:` and the whole document (folder configs: project-config.ts). */
export function parseProjectYml(text: string, file: string): { name?: string; vars: Record<string, unknown>; doc: Record<string, unknown> } {
  let doc: unknown;
  try { doc = YAML.parse(text); } catch (e) { throw new AppError('validation', `models: ${file}: ${(e as Error).message.split('\n')[0]}`); }
  const o = asObject(doc, file);
  return { name: o.name === undefined ? undefined : String(o.name), vars: asObject(o.vars, `${file}: vars`), doc: o };
}

export { configOf, seedConfigOf };
