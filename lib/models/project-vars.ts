import { TemplateError } from './template-values';

/**
 * dbt's vars (dbt-core's VarProvider, config-version 2): dbt_project.yml's
 * `vars:` holds global vars and, under a key naming a project or package, a
 * scope — `vars: {jaffle_shop: {min_amount: 5}, global_var: hello}`. A node
 * of the project sees the globals with its project's scope over them; the
 * command line's `--vars` win over both. Pure.
 */

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The vars the project's nodes see: globals, then the scope named by the
 * project (a mapping under its name), then the command line's. As in dbt, the
 * scope's key stays readable as a var of its own.
 */
export function projectVars(yml: Record<string, unknown>, project: string, cli: Record<string, unknown>): Record<string, unknown> {
  const scope = Object.prototype.hasOwnProperty.call(yml, project) && isMapping(yml[project]) ? yml[project] : {};
  return { ...yml, ...scope, ...cli };
}

/** Look up a var: command-line vars over project vars over the default. */
export function lookupVar(vars: Record<string, unknown>, name: string, fallback: unknown, hasFallback: boolean, where = "pass --vars '{" + name + ": …}' or add it under vars: in dbt_project.yml"): unknown {
  if (Object.prototype.hasOwnProperty.call(vars, name)) return vars[name];
  if (hasFallback) return fallback;
  throw new TemplateError(`var(${JSON.stringify(name)}) is not set and has no default (${where})`, 'var');
}
