import crypto from 'node:crypto';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { Env } from '../config/env';
import { getConnectionWithSecrets } from '../connections';
import { AppError } from '../errors';
import { openLake, type Lake } from '../lake';
import type { Logger } from '../log';
import { chdbLakeAccess, chdbReadRoot, openChdbTarget } from './chdb-target';
import { openClickHouseTarget, serverLakeAccess } from './clickhouse-target';
import { compiledPath, compileProject, type CompiledNode } from './compile';
import { executeProject } from './execute';
import { parseProject } from './project';
import { readProjectFiles, writeArtifact, writeCompiled } from './project-dir';
import { buildManifest, buildRunResults, type ArtifactContext, type RunArgs } from './artifacts';
import { renderInChild, type RenderChildOptions } from './render-child';
import { fromParsed, type ParsedProject } from './render-request';
import { QUERY_ROW_LIMIT, queryLimits, readOnlyQuery } from './read-only-query';
import { checkSql, lakeRoots } from './sql-guard';
import { saveResult } from './results-store';
import type { LakeAccess, S3Settings } from './source-sql';
import { ensureStarterProject } from './starter';
import type { QueryResult, Target } from './target';
import type { Command, NodeResult, Project, RunSummary } from './types';
import type { LineageDatasets } from '../lineage';
import { modelsLineage } from './lineage';
import { Lru } from '../cache/lru';

/**
 * What the worker's jobs and the CLI call: resolve the project folder, the
 * target (embedded chdb or a `clickhouse` connection) and the lake, then
 * hand them to the pure-ish engine.
 */
export interface ModelsDeps {
  pool: pg.Pool;
  env: Env;
  logger?: Logger;
  signal?: AbortSignal;
  /** Limits of the rendering child process, for the `…Confined` functions. (Default: render-child.ts's) */
  render?: RenderChildOptions;
}

export const EMBEDDED = 'embedded';

export function projectDir(env: Env, override?: string): string {
  const dir = override ?? env.TRIBUTARY_MODELS_DIR ?? path.join(env.dataDir, 'models');
  return path.resolve(/*turbopackIgnore: true*/ dir);
}

export function chdbStateDir(env: Env): string {
  const dir = env.TRIBUTARY_CHDB_DIR ?? path.join(env.dataDir, 'chdb');
  return path.resolve(/*turbopackIgnore: true*/ dir);
}

/** The warehouse's object-store settings, for an s3:// warehouse. */
function s3Of(env: Env): S3Settings | undefined {
  return /^s3a?:\/\//.test(env.warehouse) ? env.s3 : undefined;
}

function lakeOf(d: ModelsDeps): Lake {
  return openLake({ pool: d.pool, warehouse: d.env.warehouse, s3: d.env.s3, logger: d.logger });
}

/** The project, with the starter written first when the folder does not exist yet. */
export async function loadModelsProject(d: ModelsDeps, o: { project?: string; vars?: Record<string, unknown>; overrides?: Record<string, string> } = {}): Promise<Project & { errors: { path: string; message: string }[] }> {
  const root = projectDir(d.env, o.project);
  if (!o.project) await writeStarterIfMissing(d, root);
  // overrides: unsaved editor buffers, for a compile preview
  return parseProject(root, { ...readProjectFiles(root), ...o.overrides }, o.vars ?? {}, { env: d.env.dbtEnv });
}

/** The default project's folder, with the starter written first when it does not exist yet (renders nothing). */
export async function ensureModelsProject(d: ModelsDeps): Promise<string> {
  const root = projectDir(d.env);
  // Only a missing folder needs the lake's first table for the starter: the page asks every few seconds.
  if (!fs.existsSync(root)) await writeStarterIfMissing(d, root);
  return root;
}

// Parses by content: the Models page asks again on every load, the child runs only when a file or var changed.
const parsedCache = new Lru<string, Promise<ParsedProject>>({ max: 8 });
function parseConfined(d: ModelsDeps, root: string, files: Record<string, string>, vars: Record<string, unknown>): Promise<ParsedProject> {
  const env = d.env.dbtEnv;
  const key = crypto.createHash('sha256').update(JSON.stringify([root, files, vars, env])).digest('hex');
  let p = parsedCache.get(key);
  if (!p) {
    p = renderInChild<ParsedProject>({ op: 'parse', root, files, vars, env }, d.render);
    p.catch(() => parsedCache.delete(key));
    parsedCache.set(key, p);
  }
  return p;
}

/**
 * loadModelsProject for the web process: the templates are rendered (dbt's
 * parse phase) in a short-lived child process, never here.
 */
export async function loadModelsProjectConfined(d: ModelsDeps, o: { vars?: Record<string, unknown>; overrides?: Record<string, string> } = {}): Promise<Project & { errors: { path: string; message: string }[] }> {
  const root = await ensureModelsProject(d);
  return fromParsed(await parseConfined(d, root, { ...readProjectFiles(root), ...o.overrides }, o.vars ?? {}));
}

/**
 * compileModels for the web process (the editor's preview of unsaved
 * buffers): this process reads the lake tables' locations, the child
 * renders; nothing is written.
 */
export async function compileModelsConfined(d: ModelsDeps, i: { select?: string[]; exclude?: string[]; vars?: Record<string, unknown>; target?: string; overrides?: Record<string, string> }): Promise<{ nodes: CompiledNode[] }> {
  const root = await ensureModelsProject(d);
  const files = { ...readProjectFiles(root), ...i.overrides };
  const vars = i.vars ?? {};
  const spec = await resolveTarget(d, i.target);
  const lake = lakeOf(d);
  const nodes = await renderInChild<CompiledNode[]>({ op: 'compile', root, files, vars, env: d.env.dbtEnv, database: spec.database, lake: spec.lake, select: i.select, exclude: i.exclude }, d.render,
    async (ident) => (await lake.loadTable(ident)).location);
  return { nodes };
}

async function writeStarterIfMissing(d: ModelsDeps, root: string): Promise<void> {
  let table: { ident: string; columns: string[] } | undefined;
  try {
    const lake = lakeOf(d);
    for (const ns of await lake.listNamespaces()) {
      const [first] = await lake.listTables(ns);
      if (first) { const t = await lake.loadTable(first); table = { ident: t.ident, columns: t.arrowSchema().fields.map((f) => f.name) }; break; }
    }
  } catch { /* an empty or unreachable lake: the starter names a placeholder table */ }
  if (ensureStarterProject(root, table)) d.logger?.info(`models: wrote a starter project in ${root}`);
}

/** `address`: where the target's tables live, for OpenLineage dataset names (no credentials). */
interface TargetSpec { name: string; open(): Promise<Target>; lake: LakeAccess; database: string; address: { host: string; port?: number } }

/** The named target: `embedded` (or none) for chdb, else a connection of kind clickhouse. */
export async function resolveTarget(d: ModelsDeps, name?: string): Promise<TargetSpec> {
  if (!name || name === EMBEDDED) {
    const root = chdbReadRoot(d.env.warehouse, chdbStateDir(d.env));
    return {
      // The embedded chdb has no port: its tables live on this machine (`clickhouse://<hostname>`) (lineage).
      // Read below the warehouse folder wherever the data folder is, not below this process's cwd.
      name: EMBEDDED, database: 'models', lake: chdbLakeAccess(root, s3Of(d.env)), address: { host: os.hostname() },
      open: () => openChdbTarget({ stateDir: chdbStateDir(d.env), database: 'models', cwd: root, s3: s3Of(d.env), signal: d.signal }),
    };
  }
  const c = await getConnectionWithSecrets({ pool: d.pool, keys: { secret: d.env.TRIBUTARY_SECRET, dataDir: d.env.dataDir } }, name);
  if (!c) throw new AppError('not_found', `models: no connection named ${name} (use ${EMBEDDED} for the embedded ClickHouse)`, { field: 'target' });
  if (c.kind !== 'clickhouse') throw new AppError('validation', `models: connection ${name} is a ${c.kind} connection, not clickhouse`, { field: 'target' });
  const p = c.params as Record<string, string | number | undefined>;
  const url = p.http_url ? String(p.http_url) : `http://${p.host}:${p.port ?? 8123}`;
  const database = String(p.database ?? 'models');
  const serverWarehouse = p.server_warehouse ? String(p.server_warehouse) : undefined;
  return {
    name, database, address: targetAddress(url), lake: serverLakeAccess({ warehouse: d.env.warehouse, serverWarehouse, s3: s3Of(d.env) }),
    open: () => openClickHouseTarget({ url, user: p.user ? String(p.user) : undefined, password: c.secrets.password, database, warehouse: d.env.warehouse, serverWarehouse, s3: s3Of(d.env) }),
  };
}

export interface ModelsCommandInput {
  command: Command;
  select?: string[];
  exclude?: string[];
  fullRefresh?: boolean;
  vars?: Record<string, unknown>;
  target?: string;
  project?: string;
  /** Recorded with each result (the job run's id). */
  runId: string;
  onResult?(r: NodeResult, done: number, total: number): void;
  /** Called with the run's datasets (OpenLineage) while the target is still open. (Default: not described) */
  onLineage?(d: LineageDatasets): void;
}

/** A ClickHouse server's host and native port for dataset names: the HTTP URL's host, ClickHouse's native port 9000 (the naming spec's). */
function targetAddress(url: string): { host: string; port?: number } {
  try { return { host: new URL(url).hostname, port: 9000 }; } catch { return { host: 'unknown' }; }
}

/** run / test / build / seed; every outcome is stored in model_results as it finishes. */
export async function runModelsCommand(d: ModelsDeps, i: ModelsCommandInput): Promise<RunSummary & { target: string; warnings: { path: string; message: string }[] }> {
  const startedAt = new Date().toISOString();
  const project = await loadModelsProject(d, { project: i.project, vars: i.vars });
  // what the project says but Tributary does not apply: in the run's log, never dropped silently
  for (const w of project.warnings) d.logger?.warn(w.message);
  const spec = await resolveTarget(d, i.target);
  const lake = lakeOf(d);
  const target = await spec.open();
  // Stored one after the other, in the order the nodes finished.
  let saves: Promise<unknown> = Promise.resolve();
  const selection = selectionWarnings(d);
  try {
    const summary = await executeProject(project, target, {
      command: i.command, select: i.select, exclude: i.exclude, fullRefresh: i.fullRefresh, threads: d.env.TRIBUTARY_MODELS_THREADS, warehouse: d.env.warehouse,
      logger: d.logger, signal: d.signal,
      resolveSource: async (ident) => (await lake.loadTable(ident).catch((e) => { throw new AppError('not_found', `models: lake table ${ident}: ${(e as Error).message}`); })).location,
      onResult: (r, done, total) => {
        saves = saves.then(() => saveResult(d.pool, i.runId, i.command, spec.name, r)).catch((e) => d.logger?.warn(`models: could not record ${r.name}: ${(e as Error).message}`));
        i.onResult?.(r, done, total);
      },
      onWarning: selection.add,
    });
    writeRunArtifacts(d, project, summary, { database: spec.database, invocationId: i.runId, startedAt }, { ...i, threads: d.env.TRIBUTARY_MODELS_THREADS, target: spec.name });
    if (i.onLineage) {
      // Lineage never fails a run.
      await modelsLineage(project, summary.results, target, spec.address, (ident) => lake.loadTable(ident).then((t) => t.location))
        .then(i.onLineage, (e) => d.logger?.warn(`openlineage: could not describe the models' datasets: ${(e as Error).message}`));
    }
    return { ...summary, target: spec.name, warnings: [...project.warnings, ...selection.list] };
  } finally {
    await saves;
    await target.close();
  }
}

/**
 * What a command's selection warns of (a criterion matching nothing, nothing
 * to do): logged, and returned with the project's warnings. They name no file.
 */
function selectionWarnings(d: ModelsDeps): { list: { path: string; message: string }[]; add(message: string): void } {
  const list: { path: string; message: string }[] = [];
  return { list, add: (message) => { list.push({ path: '', message }); d.logger?.warn(`models: ${message}`); } };
}

/**
 * dbt's target/manifest.json and target/run_results.json after run / test /
 * build (artifacts.ts). A project folder that cannot be written (read-only
 * deployment) costs the artifacts, not the run: the results are stored.
 */
function writeRunArtifacts(d: ModelsDeps, project: Project, summary: RunSummary, ctx: ArtifactContext, args: RunArgs): void {
  try {
    const compiled = new Map(summary.results.filter((r) => r.sql !== undefined).map((r) => [`${r.kind}:${r.name}`, r.sql!]));
    writeArtifact(project.root, 'manifest.json', buildManifest(project, ctx, { compiled }));
    writeArtifact(project.root, 'run_results.json', buildRunResults(project, summary.results, summary.durationMs, ctx, args));
    // as dbt run does: each node's compiled SQL at the manifest's compiled_path (last: a project name that is refused costs only these)
    const node = (r: NodeResult) => (r.kind === 'model' ? project.models.get(r.name) : r.kind === 'test' ? project.tests.get(r.name) : undefined);
    writeCompiled(project.root, project.name, summary.results.flatMap((r) => { const n = node(r); return n && r.sql !== undefined ? [{ path: compiledPath(n), sql: r.sql }] : []; }));
  } catch (e) {
    d.logger?.warn(`models: could not write target/manifest.json, run_results.json or target/compiled/: ${(e as Error).message}`);
  }
}

/** compile: rendered SQL of the selection, written under target/compiled/. */
export async function compileModels(d: ModelsDeps, i: { select?: string[]; exclude?: string[]; vars?: Record<string, unknown>; target?: string; project?: string; write?: boolean; overrides?: Record<string, string> }): Promise<{ nodes: CompiledNode[]; written: string[]; warnings: { path: string; message: string }[] }> {
  const startedAt = new Date().toISOString();
  const project = await loadModelsProject(d, { project: i.project, vars: i.vars, overrides: i.overrides });
  const spec = await resolveTarget(d, i.target);
  const lake = lakeOf(d);
  const selection = selectionWarnings(d);
  const nodes = await compileProject(project, {
    database: spec.database, lake: spec.lake, select: i.select, exclude: i.exclude, onWarning: selection.add,
    resolveSource: async (ident) => (await lake.loadTable(ident)).location,
  });
  const written = i.write === false ? [] : writeCompiled(project.root, project.name, nodes.filter((n) => n.sql !== undefined).map((n) => ({ path: n.path, sql: n.sql! })));
  if (i.write !== false) {
    const compiled = new Map(nodes.filter((n) => n.sql !== undefined).map((n) => [`${n.kind}:${n.name}`, n.sql!]));
    written.push(writeArtifact(project.root, 'manifest.json', buildManifest(project, { database: spec.database, invocationId: crypto.randomUUID(), startedAt }, { compiled })));
  }
  return { nodes, written, warnings: [...project.warnings, ...selection.list] };
}

/**
 * The query box: one SELECT on the target, checked against the SQL allow-list
 * by the target's own parser, run with readonly and the query limits; first
 * 1,000 rows.
 */
export async function queryModels(d: ModelsDeps, i: { sql: string; target?: string }): Promise<QueryResult & { truncated: boolean; target: string }> {
  const wrapped = readOnlyQuery(i.sql);
  const spec = await resolveTarget(d, i.target);
  const target = await spec.open();
  try {
    const policy = { database: spec.database, lakeRoots: lakeRoots(spec.lake, [d.env.warehouse]), use: 'query' as const };
    // the statement as written (so INSERT, FORMAT… are named), then exactly what runs
    await checkSql(target, i.sql, policy, d.signal);
    await checkSql(target, wrapped, policy, d.signal);
    const r = await target.query(`${wrapped}\n${queryLimits()}`, d.signal);
    const truncated = r.rows.length > QUERY_ROW_LIMIT;
    return { columns: r.columns, rows: r.rows.slice(0, QUERY_ROW_LIMIT), truncated, target: spec.name };
  } finally { await target.close(); }
}
