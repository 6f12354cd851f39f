import type pg from 'pg';
import type { Env } from '../config/env';
import { builtinConnection, builtinConnections, getConnection, isBuiltinName } from '../connections';
import { AppError } from '../errors';
import { resolveDataPath } from './data-path';
import { parseTemplate } from './planning/template';

/**
 * Enqueue-time checks of the slices job payloads, for `JobDefinition.check`
 * (lib/jobs/types on main): what zod cannot know — the named connections
 * exist and are of the right kind, the named files are under the data folder,
 * the run exists where the action needs one. Each refusal is a 400 naming
 * `params.<field>`. Nothing here opens a source or contacts Striim.
 */
export interface SlicesCheckDeps { pool: pg.Pool; env: Env }
type Payload = Record<string, unknown>;

const KINDS: Record<string, readonly string[]> = { connection: ['oracle', 'postgres'], targetConnection: ['postgres'], striimConnection: ['striim'] };
const FILES: Record<string, 'read' | 'write'> = { queryFile: 'read', template: 'read', input: 'read', output: 'write', outputDir: 'write', logDir: 'write' };

async function checkConnections(deps: SlicesCheckDeps, p: Payload): Promise<void> {
  const ctx = { pool: deps.pool, keys: { secret: deps.env.TRIBUTARY_SECRET, dataDir: deps.env.dataDir }, builtins: builtinConnections(deps.env) };
  for (const [field, kinds] of Object.entries(KINDS)) {
    const name = p[field];
    if (typeof name !== 'string') continue;
    const kind = (await getConnection(ctx, name))?.kind ?? (isBuiltinName(name) ? builtinConnection(deps.env, name)?.kind : undefined);
    if (!kind) throw new AppError('validation', `params.${field}: connection '${name}' not found`, { field: `params.${field}` });
    if (!kinds.includes(kind)) throw new AppError('validation', `params.${field}: '${name}' is a ${kind} connection; expected ${kinds.join(' or ')}`, { field: `params.${field}` });
  }
}

async function checkFiles(deps: SlicesCheckDeps, p: Payload): Promise<void> {
  for (const [field, mode] of Object.entries(FILES)) {
    if (typeof p[field] === 'string') await resolveDataPath(deps.env.dataDir, p[field] as string, `params.${field}`, mode);
  }
}

async function runExists(deps: SlicesCheckDeps, runId: unknown): Promise<boolean> {
  return ((await deps.pool.query('select 1 from slice_runs where run_id = $1', [runId])).rowCount ?? 0) > 0;
}

async function checkRun(deps: SlicesCheckDeps, p: Payload): Promise<void> {
  if (!(await runExists(deps, p.runId))) throw new AppError('validation', `params.runId: slice run ${String(p.runId)} not found`, { field: 'params.runId' });
}

/**
 * A probe or split needs its SQL template: inline (`query`, parsed now with the
 * same parser the split uses: ~SPLIT~ placement, the driving table, no stray
 * |TARGET) or a file (read when the job runs). Without either it could only fail later.
 */
function checkTemplate(p: Payload): void {
  if (typeof p.queryFile === 'string') return;
  if (typeof p.query !== 'string' || !p.query.trim()) {
    throw new AppError('validation', 'params.query: a probe or split needs its SQL template: query (with ~SPLIT~, or none to split the whole table) or queryFile', { field: 'params.query' });
  }
  try {
    parseTemplate(p.query, { table: String(p.table), alias: typeof p.alias === 'string' ? p.alias : undefined });
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const field = `params.${e.field ?? 'query'}`;
    throw new AppError('validation', `${field}: ${e.message}`, { field, cause: e });
  }
}

const common = async (deps: SlicesCheckDeps, p: Payload) => { await checkConnections(deps, p); await checkFiles(deps, p); };

export const slicesChecks: Record<string, (deps: SlicesCheckDeps, payload: Payload) => Promise<void>> = {
  'slices.run': async (deps, p) => {
    await common(deps, p);
    // A fresh run needs its queryfile; a resume does not.
    if (p.queryFile === undefined && p.queryFileText === undefined && !(await runExists(deps, p.runId))) {
      throw new AppError('validation', `params.queryFileText: run ${String(p.runId)} has no slices yet: send queryFileText (or a queryFile under the data folder)`, { field: 'params.queryFileText' });
    }
  },
  'slices.reset': async (deps, p) => { await common(deps, p); await checkRun(deps, p); },
  'slices.clear': async (deps, p) => { await common(deps, p); await checkRun(deps, p); },
  'slices.reconcile': async (deps, p) => { await common(deps, p); await checkRun(deps, p); },
  'slices.board': async (deps, p) => { await common(deps, p); await checkRun(deps, p); },
  'slices.status': common,
  'slices.probe': async (deps, p) => { await common(deps, p); checkTemplate(p); },
  'slices.split': async (deps, p) => { await common(deps, p); checkTemplate(p); },
  'slices.assort': common,
};
