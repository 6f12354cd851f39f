import { DBT_ENV_VAR } from '../config/env';
import { lookupVar } from './project-vars';
import { enabledValue } from './schema-yml';
import { renderTemplate } from './template';
import { TemplateError } from './template-values';

/**
 * dbt_project.yml's values rendered as dbt renders them (dbt-core's
 * DbtProjectYamlRenderer): every string holding a Jinja tag, anywhere but in
 * `vars:` (rendered when a node reads them), the run hooks, `query-comment`
 * and the resource configs' `pre-hook`/`post-hook`. The template sees what
 * dbt's project context offers that Tributary can honestly give:
 *
 * - `var(name, default)` reads the command line's `--vars` only, as dbt
 *   does: dbt_project.yml's own `vars:` are not rendered yet when it is read;
 * - `env_var(name, default)` reads environment variables named `DBT_…`
 *   (`DBT_ENV_SECRET_…` excepted, as dbt refuses them here); any other
 *   name is an error, never the default, so a project can neither print
 *   Tributary's own settings and secrets (`DATABASE_URL`, `TRIBUTARY_SECRET`,
 *   `AWS_*`) nor quietly get its default where dbt would read the variable;
 * - no `target`: a project is parsed once for every target (the Models page
 *   parses it with none), so its configs cannot depend on one.
 *
 * A rendered value is then read as dbt's native rendering reads it: `True`,
 * `False`, `None` and numbers become those values; any other text stays
 * text. `enabled` given as a string is `true`/`false` in any case, as dbt
 * coerces it. Pure: the environment is handed in.
 */

/** Top-level keys dbt does not render. */
const NOT_RENDERED = new Set(['vars', 'on-run-start', 'on-run-end', 'query-comment', 'dbt-cloud']);
const HOOKS = new Set(['pre-hook', 'post-hook', 'pre_hook', 'post_hook']);
const RESOURCES = new Set(['models', 'seeds', 'tests', 'data_tests', 'snapshots']);

export interface ProjectRenderInput {
  /** The command line's vars (`--vars`, a job's `vars`). */
  cliVars: Record<string, unknown>;
  /** Environment variables env_var() may read: config/env.ts's `dbtEnv`. (Default: none) */
  env?: Record<string, string>;
}

/** dbt's `env_var()` over the variables Tributary lets a project read. */
export function envVarOf(env: Record<string, string>): (name: string, fallback?: string) => string {
  return (name, fallback) => {
    if (!DBT_ENV_VAR.test(name)) {
      throw new TemplateError(`env_var(${JSON.stringify(name)}): Tributary's env_var reads only variables named DBT_… (not DBT_ENV_SECRET_…), so a project never sees the server's own settings and secrets`, 'env_var');
    }
    if (Object.prototype.hasOwnProperty.call(env, name)) return env[name];
    if (fallback !== undefined) return fallback;
    throw new TemplateError(`env_var(${JSON.stringify(name)}): the variable is not set and no default was given`, 'env_var');
  };
}

/** Python's spelling of a boolean, None or a number, as dbt's native rendering reads it back; other text as it is. */
function nativeOf(text: string): unknown {
  const t = text.trim();
  if (t === 'True') return true;
  if (t === 'False') return false;
  if (t === 'None') return null;
  if (/^[+-]?\d+$/.test(t)) return Number.isSafeInteger(Number(t)) ? Number(t) : text;
  if (/^[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  return text;
}

/**
 * Render dbt_project.yml's document (see above). Errors name the key path;
 * the first one is thrown (the caller reports it as the file's error).
 */
export function renderProjectYml(doc: Record<string, unknown>, input: ProjectRenderInput): Record<string, unknown> {
  const envVar = envVarOf(input.env ?? {});
  const render = (text: string, where: string): unknown => {
    if (!/\{[{%]/.test(text)) return text;
    const none = (f: string) => () => { throw new TemplateError(`${f}() is not available in dbt_project.yml`, f); };
    const out = renderTemplate(text, {
      ref: none('ref'), source: none('source'), config: none('config'), is_incremental: () => false, this: '',
      var: (n, d) => lookupVar(input.cliVars, n, d, d !== undefined, 'dbt_project.yml is rendered with the command line\'s --vars only, as dbt renders it'),
      env_var: envVar,
    }, { file: `dbt_project.yml: ${where}` });
    return nativeOf(out);
  };
  const walk = (v: unknown, path: string[]): unknown => {
    const where = path.join('.');
    if (typeof v === 'string') return render(v, where);
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...path, String(i)]));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const key = k.replace(/^\+/, '');
        if (path.length === 0 && NOT_RENDERED.has(k)) out[k] = x;
        else if (RESOURCES.has(path[0] ?? k) && path.length > 0 && HOOKS.has(key)) out[k] = x;
        else {
          const r = walk(x, [...path, k]);
          out[k] = RESOURCES.has(path[0]) && key === 'enabled' ? enabledValue(r, `dbt_project.yml: ${where}.${k}`) : r;
        }
      }
      return out;
    }
    return v;
  };
  return walk(doc, []) as Record<string, unknown>;
}
