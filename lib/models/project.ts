import { AppError } from '../errors';
import YAML from 'yaml';
import { configKeyWarnings, mergeLevels, packagesWarnings, projectWarnings, resourceConfigs, type ResourceType, type Warning } from './project-config';
import { configOf, parseProjectYml, parseSchemaYml, seedConfigOf, testConfigOf, type YmlTest } from './schema-yml';
import { renderTemplate, type TemplateContext } from './template';
import { parseDocBlocks } from './docs-blocks';
import type { ColumnDoc, DocBlock, ModelConfig, ModelNode, Project, SeedConfig, SeedNode, TestNode } from './types';
import { TemplateError } from './template-values';
import { lookupVar, projectVars as scopedVars } from './project-vars';
import { renderProjectYml } from './project-render';

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

export { lookupVar } from './project-vars';

/** A file that could not be parsed, and why. */
interface ParseError { path: string; message: string }

/**
 * What every step of parseProject reads and adds to: problems are collected
 * in `errors` and `warnings` (never thrown), so one broken file does not hide
 * the rest of the project from the panel.
 */
interface ParseContext {
  files: ProjectFiles;
  /** The files' paths, sorted: the order nodes and errors are listed in. */
  paths: string[];
  errors: ParseError[];
  warnings: Warning[];
  /** Project vars with the command line's over them. */
  vars: Record<string, unknown>;
  /** Every macro file, joined, each opened by its marker comment. */
  macros: string;
  docs: Map<string, DocBlock>;
  /** Folder configs of a node from dbt_project.yml: its path below the resource folder, then its name. */
  folderConfig(type: ResourceType, path: string, nodeName: string): Record<string, unknown>;
}

/** A model's or seed's entry in the properties yml files (one per name: a second is an error). */
type Props<C> = { description?: string; columns: ColumnDoc[]; config: Partial<C>; tests: YmlTest[]; path: string };

/**
 * Parse a project the way dbt does: render every template once with a
 * recording context to learn its refs, sources and in-file config(), then
 * merge each node's config from dbt_project.yml's folder levels (project,
 * then each folder down to the file: the most specific wins), the
 * properties yml, and the file's config() (the file wins); tags add up.
 * Model files live under `models/`, seeds under `seeds/` (CSV), singular
 * tests under `tests/`, macros under `macros/`. Broken files are reported in
 * `errors`, not thrown, so the panel can still show the rest; keys read but
 * not applied are `warnings`.
 */
export function parseProject(root: string, files: ProjectFiles, vars: Record<string, unknown> = {}, opts: ParseOptions = {}): Project & { errors: ParseError[] } {
  const errors: ParseError[] = [];
  const warnings: Warning[] = [];
  const paths = Object.keys(files).sort();
  const { name, projectVars, doc } = readProjectYml(files, errors, warnings, { cliVars: vars, env: opts.env });
  readPackages(files, errors, warnings);
  const folders = resourceConfigs(doc, name);
  const folderConfig = (type: ResourceType, path: string, nodeName: string) => {
    const parts = path.split('/').slice(1, -1);
    try { return mergeLevels(folders.levels(type, [...parts, nodeName]).map((l) => l.config)); } catch (e) { errors.push({ path: 'dbt_project.yml', message: (e as Error).message }); return {}; }
  };
  const allVars = scopedVars(projectVars, name, vars);
  // Each macro file is preceded by a marker comment, so an error in the joined text can name its file and line.
  const macros = paths.filter((p) => p.startsWith('macros/') && p.endsWith('.sql')).map((p) => `${macroFileMarker(p)}\n${files[p]}`).join('\n');
  // docs blocks first: descriptions below may name them with doc()
  const docs = parseDocs(files, paths, errors);
  const ctx: ParseContext = { files, paths, errors, warnings, vars: allVars, macros, docs, folderConfig };

  const { models: yml, seeds: seedYml } = parseProperties(ctx);
  // seeds before models: a model may not take a seed's name (ref() could not tell them apart)
  const seeds = parseSeeds(ctx, seedYml);
  const models = parseModels(ctx, yml, seeds);
  const tests = new Map<string, TestNode>();
  addYmlTests(ctx, tests, yml, seedYml, models, seeds);
  addSingularTests(ctx, tests);

  checkRefs(errors, models, seeds, tests);
  // only now: a folder config applies to no node unless a node looked it up
  warnings.push(...folders.warnings());
  return { root, name, models, tests, seeds, macros, vars: allVars, docs: [...docs.values()].sort((a, b) => a.name.localeCompare(b.name)), errors, warnings };
}

/** What parseProject reads besides the files and the command line's vars. */
export interface ParseOptions {
  /** Environment variables dbt_project.yml's env_var() may read (config/env.ts's `dbtEnv`: DBT_… names only). (Default: none) */
  env?: Record<string, string>;
}

/**
 * dbt_project.yml's name, vars (unrendered: dbt renders them when a node
 * reads them) and document, its values rendered as dbt renders them
 * (project-render.ts); a project without one (or a broken one) is named
 * `tributary`.
 */
function readProjectYml(files: ProjectFiles, errors: ParseError[], warnings: Warning[], render: { cliVars: Record<string, unknown>; env?: Record<string, string> }): { name: string; projectVars: Record<string, unknown>; doc: Record<string, unknown> } {
  let name = 'tributary'; let projectVars: Record<string, unknown> = {}; let doc: Record<string, unknown> = {};
  if (files['dbt_project.yml'] !== undefined) {
    try {
      const p = parseProjectYml(files['dbt_project.yml'], 'dbt_project.yml');
      projectVars = p.vars;
      doc = renderProjectYml(p.doc, render);
      name = doc.name === undefined || doc.name === null ? name : String(doc.name);
      warnings.push(...projectWarnings(doc));
    } catch (e) { errors.push({ path: 'dbt_project.yml', message: (e as Error).message }); }
  }
  return { name, projectVars, doc };
}

/** packages.yml and dependencies.yml: what they list is not installed (a warning naming it). */
function readPackages(files: ProjectFiles, errors: ParseError[], warnings: Warning[]): void {
  for (const f of ['packages.yml', 'dependencies.yml']) {
    if (files[f] === undefined) continue;
    try { warnings.push(...packagesWarnings(YAML.parse(files[f]), f)); } catch (e) { errors.push({ path: f, message: `models: ${f}: ${(e as Error).message.split('\n')[0]}` }); }
  }
}

/**
 * A properties yml's `sources:`: not read. source('a', 'b') reads the lake
 * table a.b (namespace, table) whatever a yml says, so a yml source whose
 * `schema` or `identifier` differs from its names would read another table
 * than in dbt; the warning names the lake tables source() reads instead.
 */
function sourcesWarning(text: string, path: string): Warning[] {
  let doc: unknown;
  try { doc = YAML.parse(text); } catch { return []; } // parseSchemaYml reports it
  const list = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>).sources : undefined;
  if (!Array.isArray(list) || !list.length) return [];
  const names = list.map((s) => (s !== null && typeof s === 'object' ? String((s as Record<string, unknown>).name ?? '?') : '?'));
  return [{ path, message: `models: ${path}: sources: ${names.join(', ')} are not read: source('${names[0]}', 'tbl') reads the lake table ${names[0]}.tbl (namespace ${names[0]}); a yml source's schema, identifier, tests and freshness are not applied` }];
}

/** The docs blocks of the .md files under models/ and macros/; a name defined twice is an error. */
function parseDocs(files: ProjectFiles, paths: string[], errors: ParseError[]): Map<string, DocBlock> {
  const docs = new Map<string, DocBlock>();
  for (const p of paths.filter((x) => (x.startsWith('models/') || x.startsWith('macros/')) && x.endsWith('.md'))) {
    try {
      for (const d of parseDocBlocks(files[p], p)) {
        const prev = docs.get(d.name);
        if (prev) errors.push({ path: p, message: `models: docs block ${d.name} is defined twice: in ${prev.path} and ${p}` });
        else docs.set(d.name, d);
      }
    } catch (e) { errors.push({ path: p, message: (e as Error).message }); }
  }
  return docs;
}

/**
 * The properties yml files under models/ and seeds/, by model and seed name.
 * A name described twice (in two files, or twice in one) is an error naming
 * both places, as dbt fails on it; the first entry is kept.
 */
function parseProperties(ctx: ParseContext): { models: Map<string, Props<ModelConfig>>; seeds: Map<string, Props<SeedConfig>> } {
  const yml = new Map<string, Props<ModelConfig>>();
  const seedYml = new Map<string, Props<SeedConfig>>();
  for (const p of ctx.paths.filter((x) => (x.startsWith('models/') || x.startsWith('seeds/')) && /\.ya?ml$/.test(x))) {
    try {
      const parsed = parseSchemaYml(ctx.files[p], p);
      ctx.warnings.push(...parsed.warnings, ...sourcesWarning(ctx.files[p], p));
      for (const [list, into] of [[parsed.models, yml], [parsed.seeds, seedYml]] as const) {
        for (const m of list) {
          const prev = into.get(m.name) as Props<object> | undefined;
          const kind = into === yml ? 'model' : 'seed';
          if (prev) { ctx.errors.push({ path: p, message: `models: ${kind} ${m.name} is described twice: in ${prev.path} and ${p} (dbt takes one properties entry per ${kind}; remove one)` }); continue; }
          (into as Map<string, Props<object>>).set(m.name, { path: p, description: m.description, columns: m.columns, config: m.config, tests: m.tests });
        }
      }
    } catch (e) { ctx.errors.push({ path: p, message: (e as Error).message }); }
  }
  return { models: yml, seeds: seedYml };
}

/**
 * A node's description and column descriptions from its properties yml,
 * rendered (doc(), var()); one that fails to render is an error on the yml
 * file and is kept as written.
 */
function describeFromYml(ctx: ParseContext, node: ModelNode | SeedNode, fromYml: Props<object>): void {
  const render = (text: string | undefined, what: string) => {
    try { return renderDescription(text, fromYml.path, what, ctx.docs, ctx.vars); } catch (e) { ctx.errors.push({ path: fromYml.path, message: (e as Error).message }); return text; }
  };
  node.ymlPath = fromYml.path;
  node.description = render(fromYml.description, `${node.name}.description`);
  if (fromYml.columns.length) node.columns = fromYml.columns.map((c) => ({ ...c, description: render(c.description, `${node.name}.columns.${c.name}.description`) }));
}

/** seeds/**.csv: config from folders, then the properties yml (column_types merge by column, tags add up). */
function parseSeeds(ctx: ParseContext, seedYml: Map<string, Props<SeedConfig>>): Map<string, SeedNode> {
  const seeds = new Map<string, SeedNode>();
  for (const p of ctx.paths.filter((x) => x.startsWith('seeds/') && x.endsWith('.csv'))) {
    const sname = p.slice(p.lastIndexOf('/') + 1, -4);
    if (!NAME.test(sname)) { ctx.errors.push({ path: p, message: `models: ${p}: a seed name is letters, digits and _ (got ${JSON.stringify(sname)})` }); continue; }
    if (seeds.has(sname)) { ctx.errors.push({ path: p, message: `models: two seeds named ${sname}: ${seeds.get(sname)!.path} and ${p}` }); continue; }
    try {
      const folder = seedConfigOf(ctx.folderConfig('seeds', p, sname), `dbt_project.yml: seeds (${p})`);
      const props = seedYml.get(sname)?.config ?? {};
      const config: SeedConfig = { quote_columns: true, delimiter: ',', enabled: true, ...folder, ...props,
        column_types: { ...folder.column_types, ...props.column_types }, tags: [...new Set([...(folder.tags ?? []), ...(props.tags ?? [])])] };
      const node: SeedNode = { kind: 'seed', name: sname, path: p, csv: ctx.files[p], config };
      const fromYml = seedYml.get(sname);
      if (fromYml) describeFromYml(ctx, node, fromYml);
      seeds.set(sname, node);
    } catch (e) { ctx.errors.push({ path: p, message: (e as Error).message }); }
  }
  return seeds;
}

/** models/**.sql: config from folders, then the properties yml, then the file's config(); refs and sources recorded by rendering it. */
function parseModels(ctx: ParseContext, yml: Map<string, Props<ModelConfig>>, seeds: Map<string, SeedNode>): Map<string, ModelNode> {
  const models = new Map<string, ModelNode>();
  for (const p of ctx.paths.filter((x) => x.startsWith('models/') && x.endsWith('.sql'))) {
    const mname = p.slice(p.lastIndexOf('/') + 1, -4);
    if (!NAME.test(mname)) { ctx.errors.push({ path: p, message: `models: ${p}: a model name is letters, digits and _ (got ${JSON.stringify(mname)})` }); continue; }
    if (models.has(mname)) { ctx.errors.push({ path: p, message: `models: two models named ${mname}: ${models.get(mname)!.path} and ${p}` }); continue; }
    if (seeds.has(mname)) { ctx.errors.push({ path: p, message: `models: ${mname} is both a model (${p}) and a seed (${seeds.get(mname)!.path}); ref() could not tell them apart` }); continue; }
    const fromYml = yml.get(mname);
    let folder: Partial<ModelConfig> = {};
    try { folder = configOf(ctx.folderConfig('models', p, mname), `dbt_project.yml: models (${p})`); } catch (e) { ctx.errors.push({ path: 'dbt_project.yml', message: (e as Error).message }); }
    const node: ModelNode = {
      kind: 'model', name: mname, path: p, raw: ctx.files[p], refs: [], sources: [],
      config: { materialized: 'view', enabled: true, ...folder, ...fromYml?.config, tags: [...new Set([...(folder.tags ?? []), ...(fromYml?.config.tags ?? [])])] } as ModelConfig,
    };
    try {
      const rec = recordTemplate(ctx.files[p], p, ctx.macros, ctx.vars);
      node.refs = rec.refs; node.sources = rec.sources;
      ctx.warnings.push(...configKeyWarnings('models', rec.config, p, `${p}: config()`));
      const inline = configOf(rec.config, p);
      node.config = { ...node.config, ...inline, tags: [...new Set([...(node.config.tags ?? []), ...(inline.tags ?? [])])] };
    } catch (e) { ctx.errors.push({ path: p, message: (e as Error).message }); }
    if (fromYml) describeFromYml(ctx, node, fromYml);
    models.set(mname, node);
  }
  return models;
}

/** A test's folder configs from dbt_project.yml; a broken one is an error on it and no config. */
function testFolder(ctx: ParseContext, path: string, tname: string): ReturnType<typeof testConfigOf> {
  // generic tests sit at their yml's folder below models/ (or seeds/), as in dbt's fqn
  try { return testConfigOf(ctx.folderConfig('tests', path, tname), `dbt_project.yml: tests (${path})`); } catch (e) { ctx.errors.push({ path: 'dbt_project.yml', message: (e as Error).message }); return {}; }
}

/**
 * The generic tests of the properties yml (models', then seeds'): a name
 * taken gets a `_2`, `_3` … suffix; a test inherits its owner's tags; its own
 * severity, where, enabled, fail_calc, warn_if, error_if and limit win over the folder's.
 */
function addYmlTests(ctx: ParseContext, tests: Map<string, TestNode>, yml: Map<string, Props<ModelConfig>>, seedYml: Map<string, Props<SeedConfig>>, models: Map<string, ModelNode>, seeds: Map<string, SeedNode>): void {
  for (const [owner, y, kind] of [...[...yml].map(([n, y]) => [n, y, 'model'] as const), ...[...seedYml].map(([n, y]) => [n, y, 'seed'] as const)]) {
    const ownerNode = kind === 'model' ? models.get(owner) : seeds.get(owner);
    if (!ownerNode) {
      // dbt warns and leaves the entry (and the tests on it) out
      ctx.warnings.push({ path: y.path, message: `models: Did not find matching node for patch with name '${owner}' in the '${kind}s' section of file '${y.path}'${y.tests.length ? ` (its ${y.tests.length} test(s) are left out)` : ''}` });
      continue;
    }
    const ownerTags = kind === 'model' ? (ownerNode as ModelNode).config.tags : (ownerNode as SeedNode).config.tags;
    for (const t of y.tests) {
      let n = t.name; let k = 2;
      while (tests.has(n)) n = `${t.name}_${k++}`;
      const f = testFolder(ctx, t.path, n);
      const { severitySet, ...node } = t;
      tests.set(n, {
        ...node, name: n, alias: n === t.name ? t.alias : n, severity: severitySet ? t.severity : f.severity ?? t.severity, where: t.where ?? f.where,
        enabled: t.enabled ?? f.enabled, tags: [...new Set([...(f.tags ?? []), ...t.tags, ...ownerTags])],
        fail_calc: t.fail_calc ?? f.fail_calc, warn_if: t.warn_if ?? f.warn_if, error_if: t.error_if ?? f.error_if, limit: t.limit ?? f.limit,
      });
    }
  }
}

/** tests/**.sql, singular tests: a test's config() wins over its folders; it tests the first model it refs. */
function addSingularTests(ctx: ParseContext, tests: Map<string, TestNode>): void {
  for (const p of ctx.paths.filter((x) => x.startsWith('tests/') && x.endsWith('.sql'))) {
    const tname = p.slice(p.lastIndexOf('/') + 1, -4);
    if (!NAME.test(tname) || tests.has(tname)) { ctx.errors.push({ path: p, message: `models: ${p}: test names are unique letters, digits and _` }); continue; }
    try {
      const rec = recordTemplate(ctx.files[p], p, ctx.macros, ctx.vars);
      ctx.warnings.push(...configKeyWarnings('tests', rec.config, p, `${p}: config()`));
      const f = testFolder(ctx, p, tname);
      const own = testConfigOf(rec.config, p);
      tests.set(tname, {
        kind: 'test', name: tname, path: p, raw: ctx.files[p], refs: rec.refs, sources: rec.sources, model: rec.refs[0],
        severity: own.severity ?? f.severity ?? 'error', tags: [...new Set([...(f.tags ?? []), ...(own.tags ?? [])])],
        where: own.where ?? f.where, enabled: own.enabled ?? f.enabled,
        fail_calc: own.fail_calc ?? f.fail_calc, warn_if: own.warn_if ?? f.warn_if, error_if: own.error_if ?? f.error_if, limit: own.limit ?? f.limit,
      });
    } catch (e) { ctx.errors.push({ path: p, message: (e as Error).message }); }
  }
}

/** Every ref() of a model or test names a model or a seed of the project. */
function checkRefs(errors: ParseError[], models: Map<string, ModelNode>, seeds: Map<string, SeedNode>, tests: Map<string, TestNode>): void {
  const known = (r: string) => models.has(r) || seeds.has(r);
  for (const m of models.values()) for (const r of m.refs) if (!known(r)) errors.push({ path: m.path, message: `models: ${m.name} refs ${r}, which is no model or seed` });
  for (const t of tests.values()) for (const r of t.refs) if (!known(r)) errors.push({ path: t.path, message: `models: test ${t.name} refs ${r}, which is no model or seed` });
}

/**
 * A schema.yml description as dbt renders it: Jinja with `doc('name')` for a
 * docs block and `var()`; a doc() naming no block is an error naming it.
 */
function renderDescription(text: string | undefined, file: string, what: string, docs: Map<string, DocBlock>, vars: Record<string, unknown>): string | undefined {
  if (text === undefined || !/\{[{%#]/.test(text)) return text;
  const none = (f: string) => () => { throw new Error(`${f}() is not available in a description`); };
  try {
    return renderTemplate(text, {
      ref: none('ref'), source: none('source'), config: none('config'), is_incremental: () => false, this: '',
      var: (n, d) => lookupVar(vars, n, d, d !== undefined),
      doc: (n) => {
        const d = docs.get(n);
        if (!d) throw new Error(`doc('${n}') names no docs block ({% docs ${n} %} … {% enddocs %} in a .md file)${docs.size ? `; the project has ${[...docs.keys()].join(', ')}` : ''}`);
        return d.contents;
      },
    }, { file: `${file}: ${what}` });
  } catch (e) {
    throw new AppError('validation', (e as Error).message, { cause: e });
  }
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
