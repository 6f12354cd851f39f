/**
 * dbt_project.yml's resource configs (`models:`, `seeds:`, `tests:`) as dbt
 * reads them: keys with a `+` (or a known config name) are configs, other
 * keys are folders; the first level below `models:` is the project's name
 * (`models: jaffle_shop: staging: +materialized: view`), and a level may
 * also name one file (`staging: stg_orders: …`). A node's config is its
 * path's levels merged, the most specific winning, tags added up. Keys
 * Tributary does not apply are warnings, never dropped silently. Pure.
 */

export type ResourceType = 'models' | 'seeds' | 'tests';

export interface Warning { path: string; message: string }

/** Configs Tributary applies, per resource type. */
export const APPLIED: Record<ResourceType, readonly string[]> = {
  models: ['materialized', 'engine', 'order_by', 'partition_by', 'unique_key', 'on_schema_change', 'tags', 'enabled', 'query_settings'],
  seeds: ['column_types', 'quote_columns', 'delimiter', 'tags', 'enabled'],
  tests: ['severity', 'tags', 'enabled', 'where', 'fail_calc', 'warn_if', 'error_if', 'limit'],
};

const SCHEMA_NOTE = 'Tributary builds every node in the target\'s one database (the SQL allow-list reads only that one)';

/** dbt configs that exist but that Tributary does not apply, with why. */
export const NOT_APPLIED: Record<string, string> = {
  schema: SCHEMA_NOTE, database: SCHEMA_NOTE, alias: 'a node\'s relation is named by its file',
  docs: 'not applied', persist_docs: 'column and table comments are not written', meta: 'not applied',
  'pre-hook': 'hooks are not run', 'post-hook': 'hooks are not run', pre_hook: 'hooks are not run', post_hook: 'hooks are not run',
  grants: 'grants are not issued', contract: 'contracts are not enforced', full_refresh: 'use --full-refresh',
  incremental_strategy: 'Tributary appends, or replaces by unique_key',
  sql_header: 'not applied', quoting: 'names are always quoted', group: 'not applied', access: 'not applied', labels: 'not applied',
  settings: 'table SETTINGS are not applied; session settings go in query_settings', primary_key: 'use order_by', ttl: 'not applied',
  event_time: 'not applied', batch_size: 'not applied', lookback: 'not applied', begin: 'not applied', concurrent_batches: 'not applied',
  store_failures: 'failing rows are kept in the results instead', store_failures_as: 'failing rows are kept in the results instead',
  limit: 'only tests have it', warn_if: 'only tests have it', error_if: 'only tests have it', fail_calc: 'only tests have it', materialized: 'not applied',
  column_types: 'only seeds have column types', quote_columns: 'only seeds have it', delimiter: 'only seeds have it',
  severity: 'only tests have a severity', where: 'only tests have it', engine: 'only models have it', order_by: 'only models have it',
  partition_by: 'only models have it', unique_key: 'only models have it', query_settings: 'only models have it', on_schema_change: 'only models have it',
};

const KNOWN = new Set([...Object.values(APPLIED).flat(), ...Object.keys(NOT_APPLIED)]);

/** One level of a resource config tree. */
interface Level { config: Record<string, unknown>; children: Map<string, Level>; where: string; used: boolean }

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function levelOf(raw: Record<string, unknown>, where: string): Level {
  const lv: Level = { config: {}, children: new Map(), where, used: false };
  for (const [k, v] of Object.entries(raw)) {
    if (k.startsWith('+')) lv.config[k.slice(1)] = v;
    else if (KNOWN.has(k) && (!isMapping(v) || k === 'column_types' || k === 'query_settings' || k === 'meta' || k === 'docs')) lv.config[k] = v;
    else if (isMapping(v)) lv.children.set(k, levelOf(v, `${where}.${k}`));
    else lv.config[k] = v; // a plain key that is no folder: reported as unknown below
  }
  return lv;
}

export interface ResourceConfigs {
  /** Config of a node at `parts` (folders below the resource folder, then the file's name), least specific first. */
  levels(type: ResourceType, parts: string[]): { config: Record<string, unknown>; where: string }[];
  /** Warnings: unknown keys, configs not applied, paths that matched no node (call after every node was resolved). */
  warnings(): Warning[];
}

/** dbt_project.yml's `models:`, `seeds:`, `tests:` (or `data_tests:`) for a project named `project`. */
export function resourceConfigs(doc: Record<string, unknown>, project: string, file = 'dbt_project.yml'): ResourceConfigs {
  const trees = new Map<ResourceType, Level>();
  const early: Warning[] = [];
  for (const type of ['models', 'seeds', 'tests'] as const) {
    const raw = type === 'tests' ? doc.tests ?? doc.data_tests : doc[type];
    if (raw === undefined || raw === null) continue;
    if (!isMapping(raw)) { early.push({ path: file, message: `models: ${file}: ${type}: must be a mapping (ignored)` }); continue; }
    trees.set(type, levelOf(raw, type));
  }
  return {
    levels(type, parts) {
      const root = trees.get(type);
      if (!root) return [];
      root.used = true;
      const out = [{ config: root.config, where: root.where }];
      // The first level names the project (dbt also takes package names there; a project has none).
      let lv = root.children.get(project);
      for (let i = 0; lv; i++) {
        lv.used = true;
        out.push({ config: lv.config, where: lv.where });
        lv = i < parts.length ? lv.children.get(parts[i]) : undefined;
      }
      return out;
    },
    warnings() {
      const out = [...early];
      const walk = (type: ResourceType, lv: Level, top: boolean) => {
        for (const k of Object.keys(lv.config)) {
          if ((APPLIED[type] as readonly string[]).includes(k)) continue;
          if (NOT_APPLIED[k]) out.push({ path: file, message: `models: ${file}: ${lv.where}: +${k} is not applied (${NOT_APPLIED[k]})` });
          else out.push({ path: file, message: `models: ${file}: ${lv.where}: unknown config key +${k} (${type} take ${APPLIED[type].map((x) => `+${x}`).join(', ')})` });
        }
        for (const [name, child] of lv.children) {
          if (!child.used) {
            const hint = top && name !== project ? ` (the first level under ${type}: is the project's name, ${project})` : '';
            out.push({ path: file, message: `models: ${file}: ${child.where} applies to no ${type.replace(/s$/, '')}: no such folder or file${hint}` });
          } else walk(type, child, false);
        }
      };
      for (const [type, root] of trees) walk(type, root, true);
      return out;
    },
  };
}

/**
 * Merge levels (least specific first): each key's most specific value wins,
 * `tags` add up (dbt's additive config), mappings such as column_types merge.
 */
export function mergeLevels(levels: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const l of levels) {
    for (const [k, v] of Object.entries(l)) {
      if (k === 'tags') {
        const prev = Array.isArray(out.tags) ? out.tags as unknown[] : out.tags === undefined ? [] : [out.tags];
        out.tags = [...new Set([...prev, ...(Array.isArray(v) ? v : [v])].map(String))];
      } else if ((k === 'column_types' || k === 'query_settings') && isMapping(v) && isMapping(out[k])) out[k] = { ...out[k] as Record<string, unknown>, ...v };
      else out[k] = v;
    }
  }
  return out;
}

const TOP_LEVEL = new Set(['name', 'version', 'config-version', 'profile', 'vars', 'models', 'seeds', 'tests', 'data_tests', 'model-paths', 'seed-paths', 'test-paths', 'macro-paths',
  'analysis-paths', 'snapshot-paths', 'docs-paths', 'asset-paths', 'target-path', 'log-path', 'packages-install-path', 'clean-targets', 'require-dbt-version', 'quoting',
  'on-run-start', 'on-run-end', 'dispatch', 'flags', 'snapshots', 'sources', 'metrics', 'semantic-models', 'saved-queries', 'exposures', 'query-comment', 'restrict-access', 'unit_tests',
  // dbt Cloud's project id: read by dbt Cloud's CLI, no effect on a run (in dbt either)
  'dbt-cloud']);
const PATHS: Record<string, string> = { 'model-paths': 'models', 'seed-paths': 'seeds', 'test-paths': 'tests', 'macro-paths': 'macros' };

/** Top-level keys of dbt_project.yml that Tributary does not know or does not apply. */
export function projectWarnings(doc: Record<string, unknown>, file = 'dbt_project.yml'): Warning[] {
  const out: Warning[] = [];
  for (const [k, v] of Object.entries(doc)) {
    if (!TOP_LEVEL.has(k)) out.push({ path: file, message: `models: ${file}: unknown key ${k}` });
    else if (PATHS[k] && !(Array.isArray(v) && v.length === 1 && String(v[0]).replace(/\/+$/, '') === PATHS[k])) {
      // the loader, the editor, selection by path: and the artifacts all know a node by its path below the default folder
      const other = (Array.isArray(v) ? v : [v]).map((x) => String(x).replace(/\/+$/, '')).filter((x) => x !== PATHS[k]);
      out.push({ path: file, message: `models: ${file}: ${k} is not applied: Tributary reads ${PATHS[k]}/ only${other.length ? `; the files under ${other.map((x) => `${x}/`).join(', ')} are not read` : ''}` });
    }
    else if (k === 'on-run-start' || k === 'on-run-end') out.push({ path: file, message: `models: ${file}: ${k} is not applied (hooks are not run)` });
  }
  return out;
}

/** Keys of a `config:` block (schema.yml) or `{{ config(...) }}` that Tributary does not apply. */
export function configKeyWarnings(type: ResourceType, raw: Record<string, unknown>, path: string, where: string): Warning[] {
  const out: Warning[] = [];
  for (const k0 of Object.keys(raw)) {
    const k = k0.replace(/^\+/, '');
    if ((APPLIED[type] as readonly string[]).includes(k)) continue;
    out.push({ path, message: NOT_APPLIED[k] ? `models: ${where}: config ${k} is not applied (${NOT_APPLIED[k]})` : `models: ${where}: unknown config key ${k} (${type} take ${APPLIED[type].join(', ')})` });
  }
  return out;
}

/**
 * packages.yml / dependencies.yml: Tributary installs no dbt packages, so
 * each file that lists some is a warning naming them (a call to one of
 * their macros then fails as undefined); dependencies.yml's `projects:`
 * (cross-project refs) are named too.
 */
export function packagesWarnings(doc: unknown, file: string): Warning[] {
  if (!isMapping(doc)) return [];
  const names: string[] = [];
  for (const p of Array.isArray(doc.packages) ? doc.packages : []) {
    if (!isMapping(p)) continue;
    const what = p.package ?? p.git ?? p.local ?? p.tarball ?? p.private ?? p.name;
    if (what === undefined) continue;
    const version = p.version ?? p.revision;
    names.push(`${String(what)}${version === undefined ? '' : ` ${Array.isArray(version) ? version.join(', ') : String(version)}`}`);
  }
  const projects = (Array.isArray(doc.projects) ? doc.projects : []).filter(isMapping).map((p) => String(p.name));
  const out: Warning[] = [];
  if (names.length) out.push({ path: file, message: `models: ${file}: packages are not installed: ${names.join('; ')}; their macros are undefined here (a call such as dbt_utils.star() fails as undefined)` });
  if (projects.length) out.push({ path: file, message: `models: ${file}: projects are not read: ${projects.join(', ')} (a cross-project ref() fails)` });
  return out;
}
