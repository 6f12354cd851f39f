import crypto from 'node:crypto';
import { compiledPath } from './compile';
import { relationName } from './project';
import { testHash } from './test-names';
import { DEFAULT_CONDITION, DEFAULT_FAIL_CALC } from './test-status';
import type { Command, ModelNode, NodeResult, Project, SeedNode, TestNode } from './types';

/**
 * dbt's artifacts, so tools that read them (lineage viewers, dbt-docs, CI
 * checks, dbt-artifacts-parser) work on a Tributary project:
 * `target/manifest.json` in dbt's manifest v12 schema and
 * `target/run_results.json` in run-results v6, both first written by
 * dbt 1.8. Pure functions of the parsed project and a run's results; the
 * schemas are vendored in test/fixtures/dbt-schemas/ and the tests validate
 * against them. Every node kind goes through `resourceNode`, so another
 * resource type (seeds) is one more caller.
 */

export const MANIFEST_SCHEMA = 'https://schemas.getdbt.com/dbt/manifest/v12.json';
export const RUN_RESULTS_SCHEMA = 'https://schemas.getdbt.com/dbt/run-results/v6.json';
/** The dbt release whose artifact formats these are: tools read it to pick a parser. */
export const DBT_VERSION = '1.8.0';

/** What the artifacts of one invocation share. */
export interface ArtifactContext {
  /** Database (dbt's schema) the models are created in. */
  database: string;
  /** `clickhouse` for both targets: the SQL dialect. (Default: clickhouse) */
  adapterType?: string;
  invocationId: string;
  /** ISO 8601 time the invocation started. */
  startedAt: string;
  /** ISO 8601 time the artifact is written. (Default: now) */
  generatedAt?: string;
}

/** Compiled SQL by node key (`model:x`, `test:y`), when a command rendered it. */
export type CompiledSql = Map<string, string>;

type Json = Record<string, unknown>;

const sha256 = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

/** A project-level resource (model, test, seed …), as the caller knows it. */
export interface ResourceInput {
  resourceType: 'model' | 'test' | 'seed';
  name: string;
  /** Path from the project root (`models/staging/x.sql`, `seeds/x.csv`, `models/schema.yml`). */
  originalFilePath: string;
  uniqueId: string;
  fqn: string[];
  /** dbt's `path`: below the resource folder (`staging/x.sql`), or a generic test's compiled file. */
  path: string;
  alias: string;
  raw: string;
  /** The text dbt's checksum is of. (Default: raw; a seed's is its CSV, its raw_code empty) */
  checksumOf?: string;
  /** The properties yml describing it, from the project root: patch_path `<project>://<path>`. (Default: none) */
  ymlPath?: string;
  config: Json;
  tags: string[];
  description?: string;
  columns?: { name: string; description?: string; data_type?: string }[];
  dependsOn: { nodes: string[]; macros: string[] };
  refs?: string[];
  sources?: [string, string][];
  compiled?: string;
  /** Where the compiled SQL was written, from the project root. */
  compiledPath?: string;
  relationName?: string | null;
}

function docsOf(): Json { return { show: true, node_color: null }; }

/** One node of manifest.json, with every field dbt's v12 schema knows for its type. */
export function resourceNode(r: ResourceInput, p: { name: string; database: string }): Json {
  const columns: Json = {};
  for (const c of r.columns ?? []) {
    columns[c.name] = { name: c.name, description: c.description ?? '', meta: {}, data_type: c.data_type ?? null, constraints: [], quote: null, tags: [], doc_blocks: [] };
  }
  const common: Json = {
    database: null, schema: p.database, name: r.name, resource_type: r.resourceType, package_name: p.name,
    path: r.path, original_file_path: r.originalFilePath, unique_id: r.uniqueId, fqn: r.fqn, alias: r.alias,
    checksum: { name: 'sha256', checksum: sha256(r.checksumOf ?? r.raw) },
    config: r.config, tags: r.tags, description: r.description ?? '', columns, meta: {}, group: null, docs: docsOf(),
    patch_path: r.ymlPath ? `${p.name}://${r.ymlPath}` : null, build_path: null, unrendered_config: {}, created_at: 0, config_call_dict: {}, unrendered_config_call_dict: {},
    relation_name: r.relationName ?? null, raw_code: r.raw, doc_blocks: [],
  };
  if (r.resourceType === 'seed') return { ...common, root_path: null, depends_on: { macros: r.dependsOn.macros }, defer_relation: null };
  return {
    ...common, language: 'sql',
    refs: (r.refs ?? []).map((n) => ({ name: n, package: null, version: null })),
    sources: r.sources ?? [], metrics: [],
    depends_on: r.dependsOn,
    compiled_path: r.compiled === undefined || !r.compiledPath ? null : r.compiledPath,
    compiled: r.compiled !== undefined, compiled_code: r.compiled ?? null,
    extra_ctes_injected: r.compiled !== undefined, extra_ctes: [],
    contract: { enforced: false, alias_types: true, checksum: null },
  };
}

/** `models/staging/x.sql` → [project, staging, x]: dbt's fqn of a file below a resource folder. */
function fqnOf(project: string, originalFilePath: string, name: string): string[] {
  const dirs = originalFilePath.split('/').slice(1, -1);
  return [project, ...dirs, name];
}

/** `shop.orders` (a lake table) → dbt's source name and table name. */
export function sourceParts(ident: string): [string, string] {
  const i = ident.lastIndexOf('.');
  return [ident.slice(0, i), ident.slice(i + 1)];
}

export function modelUid(project: string, name: string): string { return `model.${project}.${name}`; }
export function seedUid(project: string, name: string): string { return `seed.${project}.${name}`; }
export function sourceUid(project: string, ident: string): string { const [s, t] = sourceParts(ident); return `source.${project}.${s}.${t}`; }
/** dbt's test unique_id: generic tests carry a hash of their metadata, singular tests none. */
export function testUid(project: string, t: TestNode): string {
  return t.generic ? `test.${project}.${t.name}.${testHash(t.name, testMetadata(t))}` : `test.${project}.${t.name}`;
}

function testMetadata(t: TestNode): Json {
  return { name: t.generic!.type, kwargs: { ...(t.args ?? { column_name: t.generic!.column }), model: `{{ get_where_subquery(ref('${t.model}')) }}` }, namespace: null };
}

/** The unique_id of a result's node, for run_results.json. */
export function resultUid(p: Pick<Project, 'name' | 'tests'>, r: Pick<NodeResult, 'kind' | 'name'>): string {
  if (r.kind === 'test') { const t = p.tests.get(r.name); return t ? testUid(p.name, t) : `test.${p.name}.${r.name}`; }
  return `${r.kind}.${p.name}.${r.name}`;
}

/**
 * Project macros, `{% macro name(args) %}` … `{% endmacro %}`, read from the
 * project's joined macros (each file opened by its marker comment, see
 * project.ts's macroFileMarker).
 */
export function projectMacros(project: string, joined: string): Json[] {
  const out: Json[] = [];
  const parts = joined.split(/^\{# file: (.*) #\}$/m);
  for (let i = 1; i < parts.length; i += 2) {
    const path = parts[i]; const text = parts[i + 1] ?? '';
    for (const m of text.matchAll(/\{%-?\s*macro\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)\)\s*-?%\}[\s\S]*?\{%-?\s*endmacro\s*-?%\}/g)) {
      out.push({
        name: m[1], resource_type: 'macro', package_name: project, path, original_file_path: path, unique_id: `macro.${project}.${m[1]}`,
        macro_sql: m[0], depends_on: { macros: [] }, description: '', meta: {}, docs: docsOf(), patch_path: null,
        arguments: m[2].split(',').map((a) => a.split('=')[0].trim()).filter(Boolean).map((name) => ({ name, type: null, description: '' })),
        created_at: 0, supported_languages: null,
      });
    }
  }
  return out;
}

/** dbt's built-in generic tests a project's tests depend on (`macro.dbt.test_unique` …). */
const BUILTIN_TESTS: Record<string, string> = {
  not_null: 'not_null(model, column_name)', unique: 'unique(model, column_name)',
  accepted_values: 'accepted_values(model, column_name, values, quote=True)', relationships: 'relationships(model, column_name, to, field)',
};

/** dbt's raw_code of a generic test: the test macro's call and the configs it was given. */
function genericRaw(t: TestNode): string {
  const cfg: string[] = [];
  if (t.severity === 'warn') cfg.push('severity="warn"');
  if (t.where) cfg.push(`where=${JSON.stringify(t.where)}`);
  if (t.alias && t.alias !== t.name) cfg.push(`alias="${t.alias}"`);
  for (const k of ['fail_calc', 'warn_if', 'error_if'] as const) if (t[k] !== undefined) cfg.push(`${k}=${JSON.stringify(t[k])}`);
  if (t.limit !== undefined) cfg.push(`limit=${t.limit}`);
  return `{{ test_${t.generic!.type}(**_dbt_generic_test_kwargs) }}${cfg.length ? `{{ config(${cfg.join(',')}) }}` : ''}`;
}

function modelConfig(m: ModelNode): Json {
  const { materialized, tags, enabled, unique_key, on_schema_change, ...rest } = m.config;
  return {
    enabled, alias: null, schema: null, database: null, tags, meta: {}, group: null, materialized,
    incremental_strategy: null, persist_docs: {}, 'post-hook': [], 'pre-hook': [], quoting: {}, column_types: {},
    full_refresh: null, unique_key: unique_key ?? null, on_schema_change: on_schema_change ?? 'ignore', on_configuration_change: 'apply', grants: {}, packages: [],
    docs: docsOf(), contract: { enforced: false, alias_types: true }, access: 'protected',
    // ClickHouse's own settings (engine, order_by, partition_by), as dbt-clickhouse keeps them
    ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
  };
}

/** dbt's SeedConfig: the node configs every resource has, and the seed's own (column_types, delimiter, quote_columns). */
function seedConfig(s: SeedNode): Json {
  const { tags, enabled, column_types, delimiter, quote_columns } = s.config;
  return {
    enabled, alias: null, schema: null, database: null, tags, meta: {}, group: null, materialized: 'seed',
    incremental_strategy: null, persist_docs: {}, 'post-hook': [], 'pre-hook': [], quoting: {}, column_types,
    full_refresh: null, unique_key: null, on_schema_change: 'ignore', on_configuration_change: 'apply', grants: {}, packages: [],
    docs: docsOf(), contract: { enforced: false, alias_types: true }, delimiter, quote_columns,
  };
}

/** A seed as a manifest input: `seed.<project>.<name>`; dbt's checksum is of the CSV file, its raw_code empty (dbt's seed parser reads no contents). */
function seedInput(projectName: string, database: string, s: SeedNode): ResourceInput {
  return {
    resourceType: 'seed', name: s.name, originalFilePath: s.path, uniqueId: seedUid(projectName, s.name), fqn: fqnOf(projectName, s.path, s.name),
    path: s.path.replace(/^seeds\//, ''), alias: s.name, raw: '', checksumOf: s.csv, ymlPath: s.ymlPath, config: seedConfig(s), tags: s.config.tags,
    description: s.description, columns: s.columns, dependsOn: { nodes: [], macros: [] }, relationName: relationName(database, s.name),
  };
}

function testConfig(t: TestNode): Json {
  return {
    enabled: t.enabled !== false, alias: t.alias && t.alias !== t.name ? t.alias : null, schema: 'dbt_test__audit', database: null, tags: t.tags, meta: {}, group: null,
    materialized: 'test', severity: t.severity.toUpperCase(), store_failures: null, store_failures_as: null, where: t.where ?? null,
    limit: t.limit ?? null, fail_calc: t.fail_calc ?? DEFAULT_FAIL_CALC, warn_if: t.warn_if ?? DEFAULT_CONDITION, error_if: t.error_if ?? DEFAULT_CONDITION,
  };
}

/**
 * The node maps of a manifest as buildManifest fills them: each resource
 * kind adds its nodes (or disabled entries), the sources they read and their
 * parents.
 */
interface ManifestParts {
  nodes: Json;
  disabled: Record<string, Json[]>;
  sources: Json;
  /** Parents of every listed node and source: parent_map, and child_map inverted from it. */
  parents: Map<string, string[]>;
  /** unique_ids of disabled models and seeds: a test on one is disabled too. */
  off: Set<string>;
}

/** How names in a node's code resolve to unique_ids. */
interface Resolver {
  /** A ref() name → its model, or a node of another resource type of that name. */
  refUid(name: string): string | undefined;
  /** The unique_ids of the refs that resolve, in order. */
  refIdsOf(refs: string[]): string[];
  /** The project macros the code calls: a model depends on them. */
  macrosOf(raw: string): string[];
}

/** A project's manifest.json (dbt manifest v12). `compiled` adds the SQL a command rendered. */
export function buildManifest(p: Project, ctx: ArtifactContext, o: {
  compiled?: CompiledSql;
  /** Nodes of other resource types, already shaped; a ref() to one of their names resolves to it. (Default: none; the project's seeds are added from `p.seeds`) */
  extra?: ResourceInput[];
} = {}): Json {
  const seeds = [...(p.seeds?.values() ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const extra = [...seeds.map((s) => seedInput(p.name, ctx.database, s)), ...(o.extra ?? [])];
  const parts: ManifestParts = {
    nodes: {}, disabled: {}, sources: {}, parents: new Map(),
    off: new Set(seeds.filter((s) => !s.config.enabled).map((s) => seedUid(p.name, s.name))),
  };
  addResourceNodes(parts, p.name, ctx.database, extra);
  const macros = projectMacros(p.name, p.macros);
  const resolve = resolverOf(p, extra, macros);
  // models before tests: a test on a disabled model is disabled with it
  addModelNodes(parts, p, ctx.database, resolve, o.compiled);
  addTestNodes(parts, p, ctx.database, resolve, o.compiled);
  const { nodes, sources, disabled, parents } = parts;
  return {
    metadata: manifestMetadata(p.name, ctx),
    nodes, sources, macros: macroMap(p, macros), docs: docsMap(p), exposures: {}, metrics: {}, groups: {}, selectors: {}, disabled,
    parent_map: sortMap(parents), child_map: sortMap(childrenOf(parents)), group_map: {},
    saved_queries: {}, semantic_models: {}, unit_tests: {},
  };
}

/** Nodes of other resource types (the project's seeds, the caller's extra): listed as they are, or disabled. */
function addResourceNodes(parts: ManifestParts, project: string, database: string, extra: ResourceInput[]): void {
  for (const r of extra) {
    const node = resourceNode(r, { name: project, database });
    if (parts.off.has(r.uniqueId)) { parts.disabled[r.uniqueId] = [node]; continue; }
    parts.nodes[r.uniqueId] = node;
    parts.parents.set(r.uniqueId, r.dependsOn.nodes);
  }
}

function resolverOf(p: Project, extra: ResourceInput[], macros: Json[]): Resolver {
  const extraByName = new Map(extra.map((r) => [r.name, r.uniqueId]));
  const refUid = (r: string) => (p.models.has(r) ? modelUid(p.name, r) : extraByName.get(r));
  const macroIds = new Map(macros.map((m) => [m.name as string, m.unique_id as string]));
  return {
    refUid,
    refIdsOf: (refs) => refs.map(refUid).filter((x): x is string => x !== undefined),
    macrosOf: (raw) => [...macroIds].filter(([n]) => new RegExp(`\\b${n}\\s*\\(`).test(raw)).map(([, id]) => id),
  };
}

/** A lake table read by a node, as a dbt source (listed once, by the first file reading it); its unique_id. */
function addSource(parts: ManifestParts, project: string, ident: string, by: string): string {
  const uid = sourceUid(project, ident);
  if (parts.sources[uid]) return uid;
  const [src, table] = sourceParts(ident);
  parts.sources[uid] = {
    database: null, schema: src, name: table, resource_type: 'source', package_name: project,
    // a lake table is declared by no yml file: the first file reading it stands for it
    path: by, original_file_path: by, unique_id: uid, fqn: [project, src, table],
    source_name: src, source_description: '', loader: 'tributary', identifier: table,
    quoting: { database: null, schema: null, identifier: null, column: null }, loaded_at_field: null, loaded_at_query: null,
    freshness: { warn_after: { count: null, period: null }, error_after: { count: null, period: null }, filter: null },
    external: null, description: `Iceberg table ${ident} of the lake`, columns: {}, meta: {}, source_meta: {}, tags: [],
    config: { enabled: true, event_time: null, freshness: null }, patch_path: null, unrendered_config: {},
    relation_name: null, created_at: 0, unrendered_database: null, unrendered_schema: null, doc_blocks: [],
  };
  parts.parents.set(uid, []);
  return uid;
}

/** The project's models, by name: each depends on its refs, its sources and the macros it calls. */
function addModelNodes(parts: ManifestParts, p: Project, database: string, resolve: Resolver, compiled: CompiledSql | undefined): void {
  for (const m of [...p.models.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const uid = modelUid(p.name, m.name);
    const srcIds = m.sources.map((s) => addSource(parts, p.name, s, m.path));
    const deps = [...resolve.refIdsOf(m.refs), ...srcIds];
    const node = resourceNode({
      resourceType: 'model', name: m.name, originalFilePath: m.path, uniqueId: uid, fqn: fqnOf(p.name, m.path, m.name),
      path: m.path.replace(/^models\//, ''), alias: m.name, raw: m.raw, config: modelConfig(m), tags: m.config.tags,
      description: m.description, columns: m.columns, dependsOn: { nodes: deps, macros: resolve.macrosOf(m.raw) },
      refs: m.refs, sources: m.sources.map(sourceParts), compiled: compiled?.get(`model:${m.name}`), compiledPath: `target/compiled/${p.name}/${compiledPath(m)}`,
      relationName: relationName(database, m.name), ymlPath: m.ymlPath,
    }, { name: p.name, database });
    if (!m.config.enabled) { parts.disabled[uid] = [node]; parts.off.add(uid); continue; }
    parts.nodes[uid] = node; parts.parents.set(uid, deps);
  }
}

/** The project's tests, by name: generic ones shaped as dbt writes them (test_metadata, attached_node), singular ones as files. */
function addTestNodes(parts: ManifestParts, p: Project, database: string, resolve: Resolver, compiled: CompiledSql | undefined): void {
  for (const t of [...p.tests.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const uid = testUid(p.name, t);
    const refIds = resolve.refIdsOf(t.refs);
    const srcIds = t.sources.map((s) => addSource(parts, p.name, s, t.path));
    // as dbt lists them for a relationships test: the `to` model first (ref order of the compiled test)
    const deps = [...refIds.sort(), ...srcIds];
    const generic = t.generic;
    const macrosUsed = generic ? [`macro.dbt.test_${generic.type}`, 'macro.dbt.get_where_subquery'] : resolve.macrosOf(t.raw ?? '');
    const node = resourceNode({
      resourceType: 'test', name: t.name, originalFilePath: t.path, uniqueId: uid,
      // a generic test's fqn: the yml's folder below models/ and the test's full name
      fqn: generic ? [p.name, ...t.path.split('/').slice(1, -1), t.name] : fqnOf(p.name, t.path, t.name),
      path: generic ? `${t.alias ?? t.name}.sql` : t.path.replace(/^tests\//, ''),
      alias: t.alias ?? t.name,
      raw: generic ? genericRaw(t) : t.raw ?? '',
      config: testConfig(t), tags: t.tags, description: t.description,
      dependsOn: { nodes: deps, macros: macrosUsed }, refs: generic ? [...t.refs].sort() : t.refs, sources: t.sources.map(sourceParts),
      compiled: compiled?.get(`test:${t.name}`), compiledPath: `target/compiled/${p.name}/${compiledPath(t)}`, relationName: null,
    }, { name: p.name, database });
    const full = generic ? {
      // file_key_name: the yml section the test was written in (`models.orders`, `seeds.raw_orders`)
      // a model-level test's column_name is an argument only (test_metadata), as in dbt
      ...node, column_name: generic.modelLevel ? null : generic.column, file_key_name: `${t.model && !p.models.has(t.model) && p.seeds?.has(t.model) ? 'seeds' : 'models'}.${t.model}`,
      attached_node: t.model ? resolve.refUid(t.model) ?? null : null,
      test_metadata: testMetadata(t),
    } : node;
    // as dbt does: a disabled test, or one on a disabled model or seed, is listed under disabled
    if (t.enabled === false || deps.some((d) => parts.off.has(d))) { parts.disabled[uid] = [full]; continue; }
    parts.nodes[uid] = full;
    parts.parents.set(uid, deps);
  }
}

/** child_map: parent_map inverted; every node and source is listed, a leaf with no children. */
function childrenOf(parents: Map<string, string[]>): Map<string, string[]> {
  const children = new Map<string, string[]>([...parents.keys()].map((k) => [k, []]));
  for (const [id, ps] of parents) for (const par of ps) children.get(par)?.push(id);
  return children;
}

/** Keys and lists sorted, so a manifest of the same project reads the same every time. */
function sortMap(m: Map<string, string[]>): Record<string, string[]> {
  return Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()]));
}

/** The project's macros, and dbt's built-in ones its generic tests depend on. */
function macroMap(p: Project, macros: Json[]): Json {
  const out: Json = Object.fromEntries(macros.map((m) => [m.unique_id as string, m]));
  const builtin = (name: string, path: string, sql: string) => {
    out[`macro.dbt.${name}`] = {
      name, resource_type: 'macro', package_name: 'dbt', path, original_file_path: path, unique_id: `macro.dbt.${name}`, macro_sql: sql,
      depends_on: { macros: [] }, description: '', meta: {}, docs: docsOf(), patch_path: null, arguments: [], created_at: 0, supported_languages: null,
    };
  };
  const types = new Set([...p.tests.values()].map((x) => x.generic?.type).filter(Boolean) as string[]);
  // Tributary's own SQL stands behind these (generic-tests.ts); the entries make depends_on resolve
  for (const t of types) builtin(`test_${t}`, `macros/generic_test_sql/${t}.sql`, `{% test ${BUILTIN_TESTS[t]} %}{# Tributary's built-in ${t} test #}{% endtest %}`);
  if (types.size) builtin('get_where_subquery', 'macros/materializations/tests/where_subquery.sql', '{% macro get_where_subquery(relation) %}{# the tested relation, filtered by the where config #}{% endmacro %}');
  return out;
}

/** The project's docs blocks (`{% docs name %}` in .md files). */
function docsMap(p: Project): Json {
  const docs: Json = {};
  for (const d of p.docs ?? []) {
    const uid = `doc.${p.name}.${d.name}`;
    docs[uid] = { name: d.name, resource_type: 'doc', package_name: p.name, path: d.path.split('/').slice(1).join('/'), original_file_path: d.path, unique_id: uid, block_contents: d.contents };
  }
  return docs;
}

function manifestMetadata(project: string, ctx: ArtifactContext): Json {
  return {
    dbt_schema_version: MANIFEST_SCHEMA, dbt_version: DBT_VERSION, generated_at: ctx.generatedAt ?? new Date().toISOString(),
    invocation_id: ctx.invocationId, invocation_started_at: ctx.startedAt, env: {}, project_name: project,
    project_id: crypto.createHash('md5').update(project).digest('hex'), user_id: null, send_anonymous_usage_stats: false,
    adapter_type: ctx.adapterType ?? 'clickhouse', quoting: { database: null, schema: null, identifier: null, column: null }, run_started_at: ctx.startedAt,
  };
}

/** What a command was asked, dbt's `args` of run_results.json. */
export interface RunArgs {
  command: Command | 'compile';
  select?: string[];
  exclude?: string[];
  fullRefresh?: boolean;
  vars?: Record<string, unknown>;
  target?: string;
  threads?: number;
}

/** run_results.json (dbt run-results v6) of one run / test / build. */
export function buildRunResults(p: Pick<Project, 'name' | 'tests'>, results: NodeResult[], elapsedMs: number, ctx: ArtifactContext, args: RunArgs): Json {
  return {
    metadata: {
      dbt_schema_version: RUN_RESULTS_SCHEMA, dbt_version: DBT_VERSION, generated_at: ctx.generatedAt ?? new Date().toISOString(),
      invocation_id: ctx.invocationId, invocation_started_at: ctx.startedAt, env: {},
    },
    results: results.map((r) => {
      const completed = r.startedAt ? new Date(Date.parse(r.startedAt) + r.durationMs).toISOString() : null;
      const timing = r.startedAt ? [{ name: 'compile', started_at: r.startedAt, completed_at: r.startedAt }, { name: 'execute', started_at: r.startedAt, completed_at: completed }] : [];
      return {
        status: r.status, timing, thread_id: `Thread-${r.thread ?? 1}`, execution_time: r.durationMs / 1000,
        adapter_response: r.status === 'skipped' ? {} : { _message: messageOf(r, p.tests.get(r.name)) ?? '', code: r.kind === 'model' ? r.materialized ?? 'view' : r.kind === 'seed' ? 'INSERT' : 'SELECT', rows_affected: r.rows ?? -1 },
        // dbt reports a passing test's failures as 0, whatever its fail_calc gave
        message: messageOf(r, p.tests.get(r.name)), failures: r.kind === 'test' && r.rows !== null ? (r.status === 'pass' ? 0 : r.rows) : null,
        // a seed has no compiled code in dbt (its statements load a file)
        unique_id: resultUid(p, r), compiled: r.kind === 'seed' ? null : r.sql !== undefined, compiled_code: r.kind === 'seed' ? null : r.sql ?? null,
        // as dbt: a model's relation (quoted as the adapter quotes it); tests (no stored failures) and seeds have none
        relation_name: r.kind === 'model' ? relationName(ctx.database, r.name) : null, batch_results: null,
      };
    }),
    elapsed_time: elapsedMs / 1000,
    args: {
      which: args.command, select: args.select ?? [], exclude: args.exclude ?? [], full_refresh: !!args.fullRefresh,
      vars: args.vars ?? {}, target: args.target ?? null, threads: args.threads ?? null,
    },
  };
}

/** dbt's result message: the error, a test's `Got n results, configured to fail if != 0` (its error_if, or warn_if when it warned), a model's `OK`. */
function messageOf(r: NodeResult, t: TestNode | undefined): string | null {
  if (r.status === 'error') return r.error ?? 'error';
  if (r.status === 'skipped') return r.skippedBecause ? `skipped: upstream ${r.skippedBecause} failed` : null;
  if (r.kind === 'test') return r.status === 'pass' ? null : `Got ${r.rows} result${r.rows === 1 ? '' : 's'}, configured to ${r.status === 'warn' ? `warn if ${t?.warn_if ?? DEFAULT_CONDITION}` : `fail if ${t?.error_if ?? DEFAULT_CONDITION}`}`;
  if (r.kind === 'seed') return `INSERT ${r.rows ?? 0}`;
  return r.rows === null ? 'OK' : `OK ${r.rows}`;
}
