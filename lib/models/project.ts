import { AppError } from '../errors';
import { configOf, parseProjectYml, parseSchemaYml } from './schema-yml';
import { renderTemplate, type TemplateContext } from './template';
import { TemplateError } from './template-values';
import type { ModelConfig, ModelNode, Project, TestNode } from './types';

/** A project as files: path relative to the root → text. */
export type ProjectFiles = Record<string, string>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `db`.`name`, ClickHouse identifier quoting. */
export function quoteIdent(s: string): string {
  return '`' + s.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';
}
export function relationName(database: string, name: string): string {
  return `${quoteIdent(database)}.${quoteIdent(name)}`;
}

/** `source('lake', 'ns.table')` or `source('ns', 'table')` → `ns.table`. */
export function sourceIdent(a: string, b?: string): string {
  const ident = b === undefined ? a : a === 'lake' ? b : `${a}.${b}`;
  if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$/.test(ident)) throw new TemplateError(`source(${JSON.stringify(a)}${b === undefined ? '' : `, ${JSON.stringify(b)}`}): expected source('lake', 'namespace.table')`, 'source');
  return ident;
}

/** Look up a var: command-line vars over project vars over the default. */
export function lookupVar(vars: Record<string, unknown>, name: string, fallback: unknown, hasFallback: boolean): unknown {
  if (Object.prototype.hasOwnProperty.call(vars, name)) return vars[name];
  if (hasFallback) return fallback;
  throw new TemplateError(`var(${JSON.stringify(name)}) is not set and has no default (pass --vars '{"${name}": …}' or add it under vars: in dbt_project.yml)`, 'var');
}

/**
 * Parse a project the way dbt does: render every template once with a
 * recording context to learn its refs, sources and in-file config(), then
 * merge the config of dbt_project.yml (defaults), schema.yml and the file
 * (the file wins). Model files live under `models/`, singular tests under
 * `tests/`, macros under `macros/`. Broken files are reported in `errors`,
 * not thrown, so the panel can still show the rest.
 */
export function parseProject(root: string, files: ProjectFiles, vars: Record<string, unknown> = {}): Project & { errors: { path: string; message: string }[] } {
  const errors: { path: string; message: string }[] = [];
  const paths = Object.keys(files).sort();
  let name = 'tributary'; let projectVars: Record<string, unknown> = {}; let defaults: Partial<ModelConfig> = {};
  if (files['dbt_project.yml'] !== undefined) {
    try { const p = parseProjectYml(files['dbt_project.yml'], 'dbt_project.yml'); name = p.name ?? name; projectVars = p.vars; defaults = p.defaults; } catch (e) { errors.push({ path: 'dbt_project.yml', message: (e as Error).message }); }
  }
  const allVars = { ...projectVars, ...vars };
  // Each macro file is preceded by a marker comment, so an error in the joined text can name its file and line.
  const macros = paths.filter((p) => p.startsWith('macros/') && p.endsWith('.sql')).map((p) => `${macroFileMarker(p)}\n${files[p]}`).join('\n');

  const yml = new Map<string, { description?: string; config: Partial<ModelConfig>; tests: TestNode[] }>();
  for (const p of paths.filter((x) => x.startsWith('models/') && /\.ya?ml$/.test(x))) {
    try {
      for (const m of parseSchemaYml(files[p], p).models) {
        const prev = yml.get(m.name);
        yml.set(m.name, { description: m.description ?? prev?.description, config: { ...prev?.config, ...m.config }, tests: [...(prev?.tests ?? []), ...m.tests] });
      }
    } catch (e) { errors.push({ path: p, message: (e as Error).message }); }
  }

  const models = new Map<string, ModelNode>();
  for (const p of paths.filter((x) => x.startsWith('models/') && x.endsWith('.sql'))) {
    const mname = p.slice(p.lastIndexOf('/') + 1, -4);
    if (!NAME.test(mname)) { errors.push({ path: p, message: `models: ${p}: a model name is letters, digits and _ (got ${JSON.stringify(mname)})` }); continue; }
    if (models.has(mname)) { errors.push({ path: p, message: `models: two models named ${mname}: ${models.get(mname)!.path} and ${p}` }); continue; }
    const fromYml = yml.get(mname);
    const node: ModelNode = {
      kind: 'model', name: mname, path: p, raw: files[p], refs: [], sources: [], description: fromYml?.description,
      config: { materialized: 'view', tags: [], enabled: true, ...defaults, ...fromYml?.config } as ModelConfig,
    };
    try {
      const rec = recordTemplate(files[p], p, macros, allVars);
      node.refs = rec.refs; node.sources = rec.sources;
      const inline = configOf(rec.config, p);
      node.config = { ...node.config, ...inline, tags: [...new Set([...(node.config.tags ?? []), ...(inline.tags ?? [])])] };
    } catch (e) { errors.push({ path: p, message: (e as Error).message }); }
    models.set(mname, node);
  }

  const tests = new Map<string, TestNode>();
  for (const [mname, y] of yml) {
    if (!models.has(mname)) { errors.push({ path: y.tests[0]?.path ?? 'schema.yml', message: `models: schema.yml describes ${mname}, which is no model file` }); continue; }
    for (const t of y.tests) {
      let n = t.name; let k = 2;
      while (tests.has(n)) n = `${t.name}_${k++}`;
      tests.set(n, { ...t, name: n, tags: [...new Set([...t.tags, ...models.get(mname)!.config.tags])] });
    }
  }
  for (const p of paths.filter((x) => x.startsWith('tests/') && x.endsWith('.sql'))) {
    const tname = p.slice(p.lastIndexOf('/') + 1, -4);
    if (!NAME.test(tname) || tests.has(tname)) { errors.push({ path: p, message: `models: ${p}: test names are unique letters, digits and _` }); continue; }
    try {
      const rec = recordTemplate(files[p], p, macros, allVars);
      const sev = String(rec.config.severity ?? 'error');
      tests.set(tname, {
        kind: 'test', name: tname, path: p, raw: files[p], refs: rec.refs, sources: rec.sources, model: rec.refs[0],
        severity: sev === 'warn' ? 'warn' : 'error', tags: configOf(rec.config, p).tags ?? [],
        where: rec.config.where === undefined ? undefined : String(rec.config.where),
      });
    } catch (e) { errors.push({ path: p, message: (e as Error).message }); }
  }

  for (const m of models.values()) for (const r of m.refs) if (!models.has(r)) errors.push({ path: m.path, message: `models: ${m.name} refs ${r}, which is no model` });
  for (const t of tests.values()) for (const r of t.refs) if (!models.has(r)) errors.push({ path: t.path, message: `models: test ${t.name} refs ${r}, which is no model` });
  return { root, name, models, tests, macros, vars: allVars, errors };
}

/** The comment that opens each macro file in a project's joined macros (see template.ts). */
export function macroFileMarker(path: string): string {
  return `{# file: ${path.replace(/#}/g, '')} #}`;
}

/** Render with a context that records instead of resolving (dbt's parse phase). */
function recordTemplate(text: string, file: string, macros: string, vars: Record<string, unknown>): { refs: string[]; sources: string[]; config: Record<string, unknown> } {
  const refs: string[] = []; const sources: string[] = []; const config: Record<string, unknown> = {};
  const ctx: TemplateContext = {
    ref: (n) => { if (!refs.includes(n)) refs.push(n); return relationName('__parse__', n); },
    source: (a, b) => { const id = sourceIdent(a, b); if (!sources.includes(id)) sources.push(id); return `__source__(${id})`; },
    config: (o) => { Object.assign(config, o); return ''; },
    var: (n, d) => lookupVar(vars, n, d, d !== undefined),
    is_incremental: () => false,
    this: relationName('__parse__', file),
  };
  renderTemplate(text, ctx, { file, preamble: macros });
  return { refs, sources, config };
}

/** Refuse to run a project with parse errors, listing them. */
export function assertParsed(p: { errors: { path: string; message: string }[] }): void {
  if (p.errors.length) throw new AppError('validation', `models: the project has ${p.errors.length} error(s): ${p.errors.map((e) => e.message).join('; ')}`);
}
