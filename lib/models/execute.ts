import { pointAtSource } from './error-position';
import { buildGraph, refId, type Graph } from './graph';
import { existing, materialize, putInPlace } from './materialize';
import { loadSeed } from './seed-load';
import { sessionSettings, settingsClause } from './session-settings';
import { assertParsed } from './project';
import { renderModel, renderTest, type RenderEnv } from './render';
import { NOTHING_TO_DO, selectNodes } from './selector';
import { renderSource } from './source-sql';
import { checkModelConfig, checkSql, lakeRoots, type SqlPolicy } from './sql-guard';
import { failingRowsSql, failuresSql, failuresValue, testStatus } from './test-status';
import type { Target } from './target';
import type { Command, ModelNode, NodeResult, Project, RunSummary, SeedNode, TestNode } from './types';
import { silentLogger, type Logger } from '../log';

export interface ExecuteOptions {
  command: Command;
  /** dbt selectors. (Default: everything) */
  select?: string[];
  exclude?: string[];
  /** Rebuild incremental models from scratch. (Default: false) */
  fullRefresh?: boolean;
  /** Models/tests run at once. (Default: 4) */
  threads?: number;
  /**
   * The warehouse URI (file:// or s3://): lake readers in model SQL may read
   * below it. (Default: none — only the locations of this run's sources)
   */
  warehouse?: string;
  /** Lake table identifier → its location (file:// or s3://); the lake's loadTable. */
  resolveSource(ident: string): Promise<string>;
  logger?: Logger;
  signal?: AbortSignal;
  /** Called as each node finishes. */
  onResult?(r: NodeResult, done: number, total: number): void;
  /** What the selection warns of, as dbt does: a criterion matching nothing, nothing to do. (Default: not told) */
  onWarning?(message: string): void;
}

const FAILING_ROWS = 100;

/**
 * A ClickHouse error on a node's rendered SQL, pointed at the node's own
 * file (`models: models/x.sql: line 4, col 15: ClickHouse: …`): positions
 * ClickHouse gives count from the statement it ran, not from the file.
 */
function located(message: string, file: string, raw: string, sql: string | undefined): string {
  if (sql === undefined || !/^models: ClickHouse: /.test(message)) return message;
  const p = pointAtSource(message.replace(/^models: /, ''), raw, sql.replace(/[\s;]+$/, ''));
  return p.position ? `models: ${file}: line ${p.position.line}, col ${p.position.col}: ${p.message}` : message;
}

/**
 * run / test / build over a selection: every node starts when what it needs
 * is done, at most `threads` at once; a failed model (or, in build, a failed
 * error-severity test) skips everything downstream of it, as dbt does.
 */
export async function executeProject(p: Project & { errors?: { path: string; message: string }[] }, target: Target, o: ExecuteOptions): Promise<RunSummary> {
  const t0 = Date.now();
  if (p.errors) assertParsed({ errors: p.errors });
  const g = buildGraph(p);
  const log = o.logger ?? silentLogger;
  const { ids, deps, rank } = planRun(p, g, o);
  const byRank = (a: string, b: string) => rank(a) - rank(b) || a.localeCompare(b);
  const results = await schedule(ids.slice().sort(byRank), deps, nodeRunner(p, target, o), o, log);
  const list = ids.slice().sort(byRank).map((id) => results.get(id)!);
  const ok = list.every((r) => r.status !== 'error' && r.status !== 'fail' && r.status !== 'skipped');
  return { command: o.command, ok, results: list, durationMs: Date.now() - t0 };
}

/**
 * The nodes the command runs (`run` models, `test` tests, `seed` seeds,
 * `build` all) and what each waits for within them; `rank` is the DAG's
 * order, a test ranked with the model it tests.
 */
function planRun(p: Project, g: Graph, o: ExecuteOptions): { ids: string[]; deps: Map<string, string[]>; rank: (id: string) => number } {
  const chosen = selectNodes(p, g, o.select ?? [], o.exclude ?? [], o.onWarning);
  const only = { run: 'model:', test: 'test:', seed: 'seed:', build: '' }[o.command];
  const ids = [...chosen].filter((id) => id.startsWith(only));
  if (ids.length === 0) o.onWarning?.(NOTHING_TO_DO);
  const inSet = new Set(ids);
  // What each node waits for, within the chosen set.
  const deps = new Map<string, string[]>();
  for (const id of ids) {
    const d = new Set(g.parents.get(id)!.filter((x) => inSet.has(x)));
    if (o.command === 'build' && id.startsWith('model:')) {
      // dbt build: a model also waits for the tests of the models it refs.
      for (const par of g.parents.get(id)!) for (const c of g.children.get(par) ?? []) if (c.startsWith('test:') && inSet.has(c)) d.add(c);
    }
    deps.set(id, [...d]);
  }
  const order = new Map(g.order.map((id, i) => [id, i]));
  const rank = (id: string) => order.get(!id.startsWith('test:') ? id : refId(p, p.tests.get(id.slice(5))!.model ?? '')) ?? 0;
  return { ids, deps, rank };
}

/** What running one node needs beside the node: the run's lake sources, resolved as nodes ask for them, and the SQL check. */
interface NodeRun {
  p: Project;
  target: Target;
  o: ExecuteOptions;
  /** Resolve these lake tables (each once per run) before rendering SQL that reads them. */
  prepare(sources: string[]): Promise<void>;
  /** The allow-list's policy: lake readers may read the locations resolved so far. */
  policy(): SqlPolicy;
  check(sql: string): Promise<void>;
  env: RenderEnv;
}

/** Runs one node by id; the lake sources it resolves are shared by every node of the run. */
function nodeRunner(p: Project, target: Target, o: ExecuteOptions): (id: string) => Promise<NodeResult> {
  const sourceCache = new Map<string, Promise<string>>();
  const resolved = new Map<string, string>();
  const locations = new Set<string>(o.warehouse ? [o.warehouse] : []);
  const prepare = async (sources: string[]) => {
    for (const s of sources) {
      if (!sourceCache.has(s)) sourceCache.set(s, o.resolveSource(s));
      const location = await sourceCache.get(s)!;
      locations.add(location);
      resolved.set(s, renderSource(location, target.lake));
    }
  };
  // Every model's and test's rendered SQL passes the allow-list before it runs.
  const policy = () => ({ database: target.database, lakeRoots: lakeRoots(target.lake, [...locations]), use: 'model' as const });
  const check = async (sql: string) => { await checkSql(target, sql, policy(), o.signal); };
  const env: RenderEnv = { database: target.database, source: (ident) => { const r = resolved.get(ident); if (!r) throw new Error(`models: source ${ident} was not resolved`); return r; } };
  const run: NodeRun = { p, target, o, prepare, policy, check, env };
  return async (id) => {
    const start = Date.now();
    if (id.startsWith('seed:')) return runSeed(run, p.seeds.get(id.slice(5))!, start);
    if (id.startsWith('model:')) return runModel(run, p.models.get(id.slice(6))!, start);
    return runTest(run, p.tests.get(id.slice(5))!, start);
  };
}

/** Load a seed's CSV into a new table and swap it in place. */
async function runSeed({ target, o }: NodeRun, sd: SeedNode, start: number): Promise<NodeResult> {
  try {
    const now = await existing(target, sd.name);
    const out = await loadSeed(target, sd, { signal: o.signal, swap: (tmp, name) => putInPlace(target, tmp, name, now, o.signal) });
    return { name: sd.name, kind: 'seed', status: 'success', materialized: 'seed', rows: out.rows, durationMs: Date.now() - start, sql: out.sql };
  } catch (e) {
    return { name: sd.name, kind: 'seed', status: 'error', materialized: 'seed', rows: null, durationMs: Date.now() - start, error: (e as Error).message };
  }
}

/** Render a model, check its SQL and config, and materialize it; an error points at the model's file. */
async function runModel({ p, target, o, prepare, policy, check, env }: NodeRun, m: ModelNode, start: number): Promise<NodeResult> {
  const statements: string[] = [];
  let sql: string | undefined;
  try {
    await prepare(m.sources);
    await checkModelConfig(target, m.name, m.config, policy(), o.signal);
    const out = await materialize(target, m, {
      fullRefresh: !!o.fullRefresh, signal: o.signal,
      render: (inc) => (sql = renderModel(p, m, env, inc)),
      check,
      onStatement: (s) => statements.push(s),
      // what on_schema_change did to the table goes to the run's log, as dbt logs it
      onSchemaChange: (note) => o.logger?.info(`models: model ${m.name}: ${note}`),
    });
    return { name: m.name, kind: 'model', status: 'success', materialized: m.config.materialized, rows: out.rows, durationMs: Date.now() - start, sql: out.sql };
  } catch (e) {
    return { name: m.name, kind: 'model', status: 'error', materialized: m.config.materialized, rows: null, durationMs: Date.now() - start, sql, error: located((e as Error).message, m.path, m.raw, sql) };
  }
}

/**
 * Run a test as dbt's test materialization does: its failures value is
 * `fail_calc` (count(*)) over its failing rows (at most `limit`), its status
 * error_if / warn_if on that value (test-status.ts); the first failing rows
 * are kept with the result.
 */
async function runTest({ p, target, o, prepare, check, env }: NodeRun, t: TestNode, start: number): Promise<NodeResult> {
  let sql: string | undefined;
  try {
    await prepare(t.sources);
    sql = renderTest(p, t, env);
    await check(sql);
    const failures = failuresSql(sql, t);
    // fail_calc is the user's SQL too
    if (t.fail_calc !== undefined) await check(failures);
    // A test's own joins follow SQL's NULL semantics as models' do.
    const clause = settingsClause(sessionSettings());
    const [cnt, rows] = await Promise.all([
      target.query(`${failures}${clause}`, o.signal),
      target.query(`SELECT * FROM (\n${failingRowsSql(sql, t.limit)}\n) LIMIT ${FAILING_ROWS}${clause}`, o.signal),
    ]);
    const n = failuresValue(cnt.rows[0]?.failures ?? null, t.fail_calc);
    return { name: t.name, kind: 'test', status: testStatus(t, n), rows: n, durationMs: Date.now() - start, sql, failingRows: rows.rows };
  } catch (e) {
    return { name: t.name, kind: 'test', status: 'error', rows: null, durationMs: Date.now() - start, sql, error: t.raw === undefined ? (e as Error).message : located((e as Error).message, t.path, t.raw, sql) };
  }
}

/** A result that stops what depends on it. */
const blocks = (r: NodeResult) => r.status === 'error' || r.status === 'fail' || r.status === 'skipped';

/** A node not run: cancelled, or downstream of `because` (the node that failed first). */
function skipped(id: string, because: string): NodeResult {
  return { name: id.replace(/^\w+:/, ''), kind: id.slice(0, id.indexOf(':')) as NodeResult['kind'], status: 'skipped', rows: null, durationMs: 0, skippedBecause: because };
}

/** One line per finished node, at the level its status deserves. */
function logResult(log: Logger, r: NodeResult): void {
  const line = `models: ${r.kind} ${r.name} ${r.status.toUpperCase()}${r.rows !== null ? ` (${r.rows} rows)` : ''} in ${r.durationMs} ms${r.error ? `: ${r.error}` : ''}${r.skippedBecause ? ` (upstream ${r.skippedBecause} failed)` : ''}`;
  if (r.status === 'error' || r.status === 'fail') log.error(line); else if (r.status === 'warn' || r.status === 'skipped') log.warn(line); else log.info(line);
}

/**
 * Run `pending` (in rank order) as their deps finish, at most `threads` at
 * once; a node whose dep blocks is skipped naming the failure upstream, and
 * an abort skips everything not started. Resolves when every node has a result.
 */
function schedule(pending: string[], deps: Map<string, string[]>, runNode: (id: string) => Promise<NodeResult>, o: ExecuteOptions, log: Logger): Promise<Map<string, NodeResult>> {
  const results = new Map<string, NodeResult>();
  // a skipped node → the failed node that skipped it, so what it skips in turn names that node too
  const blocked = new Map<string, string>();
  const threads = Math.max(1, o.threads ?? 4);
  let running = 0; let done = 0;
  const freeSlots = Array.from({ length: threads }, (_, i) => i + 1);
  const total = pending.length;

  return new Promise((resolve) => {
    const pump = () => {
      if (o.signal?.aborted) {
        for (const id of pending.splice(0)) finish(id, skipped(id, 'cancelled'));
      }
      for (let i = 0; i < pending.length && running < threads; ) {
        const id = pending[i];
        const ds = deps.get(id)!;
        const bad = ds.find((d) => results.has(d) && blocks(results.get(d)!));
        if (bad) { pending.splice(i, 1); finish(id, skipped(id, blocked.get(bad) ?? bad.replace(/^\w+:/, ''))); continue; }
        if (!ds.every((d) => results.has(d))) { i++; continue; }
        pending.splice(i, 1); running++;
        log.info(`models: ${id.replace(':', ' ')} started`);
        // the lowest free slot: dbt's thread_id in run_results.json
        const slot = freeSlots.sort((a, b) => a - b).shift() ?? running;
        const startedAt = new Date().toISOString();
        void runNode(id).then((r) => { running--; freeSlots.push(slot); finish(id, { ...r, startedAt, thread: slot }); pump(); });
      }
      if (!pending.length && running === 0) resolve(results);
    };
    const finish = (id: string, r: NodeResult) => {
      results.set(id, r); done++;
      if (r.status === 'skipped' && r.skippedBecause) blocked.set(id, r.skippedBecause);
      logResult(log, r);
      o.onResult?.(r, done, total);
    };
    pump();
  });
}
