import YAML from 'yaml';
import { AppError } from '../errors';

/**
 * `--vars` as dbt reads it (dbt-core's `parse_cli_vars`): a YAML document
 * that must be a mapping — `{key: value, date: 20180101}`, `key: 42` or
 * JSON (a JSON object is YAML too). Anything else (a scalar, a list, an empty
 * string, broken YAML) is a validation error saying so.
 */
export function parseCliVars(text: string): Record<string, unknown> {
  let v: unknown;
  try { v = YAML.parse(text); } catch (e) {
    throw new AppError('validation', `models: --vars is not valid YAML (${(e as Error).message.split('\n')[0]}); give a mapping, e.g. '{days: 7}' or 'days: 7'`, { field: 'vars' });
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new AppError('validation', `models: --vars must be a YAML mapping, e.g. '{days: 7}' or 'days: 7' (got ${v === null || v === undefined ? 'nothing' : Array.isArray(v) ? 'a list' : `the ${typeof v} ${JSON.stringify(v)}`})`, { field: 'vars' });
  }
  return v as Record<string, unknown>;
}
