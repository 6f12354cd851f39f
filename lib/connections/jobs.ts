import path from 'node:path';
import type pg from 'pg';
import { z } from 'zod';
import type { Env } from '../config/env';
import type { Logger } from '../log';
import { AppError } from '../errors';

// lib/jobs is this layer's peer, so its JobDefinition type is not imported: these
// definitions match it structurally and workers/jobs.ts (which knows both) lists them.
interface JobDeps { pool: pg.Pool; env: Env }
interface RunContext extends JobDeps { logger: Logger; signal: AbortSignal; progress(done: number, total?: number): void }

export const ConnectionTestRequest = z.strictObject({
  name: z.string().min(1).max(100).describe('The connection to test, by name (stored or built-in `env:…`).'),
});
export type ConnectionTestRequest = z.infer<typeof ConnectionTestRequest>;

export const CatalogRequest = z.strictObject({
  name: z.string().min(1).max(100).describe('The source connection (postgres or oracle), by name.'),
  schema: z.string().min(1).max(128).regex(/^[A-Za-z0-9_$#]+$/, 'a schema name of [A-Za-z0-9_$#]').optional().describe('A schema (Oracle: owner) to list the tables of. (Default: list the schemas)'),
});
export type CatalogRequest = z.infer<typeof CatalogRequest>;

/** The connection store as a job sees it: stored connections (decrypted with the secret) and the built-in `env:…` ones. */
async function storeOf(deps: JobDeps) {
  const { builtinConnections } = await import('./builtin');
  return { pool: deps.pool, keys: { secret: deps.env.TRIBUTARY_SECRET, dataDir: deps.env.dataDir }, builtins: builtinConnections(deps.env) };
}

/** The payload's connection (stored or built-in) exists: checked when the job is posted. */
async function checkNamedConnection(deps: JobDeps, name: string): Promise<void> {
  const { connectionExists } = await import('./store');
  if (!(await connectionExists(await storeOf(deps), name))) {
    throw new AppError('validation', `params.name: no connection named ${JSON.stringify(name)}`, { field: 'params.name' });
  }
}

/** `connections.test`: reachability, server version, latency and, for branches, which tables of tables.json exist. */
export const connectionsJobs = [
  {
    kind: 'connections.test',
    description: 'Test a connection: reachability, server version, latency, and for a branch which tables of tables.json it has',
    role: 'operator' as const,
    payload: ConnectionTestRequest,
    check: (deps: JobDeps, p: ConnectionTestRequest) => checkNamedConnection(deps, p.name),
    async run(ctx: RunContext, p: ConnectionTestRequest): Promise<unknown> {
      const { testConnection } = await import('./test-connection');
      const { loadTablesConfig } = await import('../config/tables-json');
      ctx.progress(0, 1);
      // A missing or broken tables.json does not stop the test: reachability is still worth knowing.
      const tables = await loadTablesConfig(path.resolve(ctx.env.TRIBUTARY_TABLES_FILE)).catch((e: Error) => {
        ctx.logger.warn(`connections: tables.json not checked: ${e.message}`);
        return undefined;
      });
      const r = await testConnection(await storeOf(ctx), p.name, {
        tables, oracleClientLibDir: ctx.env.ORACLE_CLIENT_LIB_DIR, logger: ctx.logger, signal: ctx.signal,
      });
      ctx.progress(1, 1);
      if (r.reachable) {
        const missing = r.tables?.filter((t) => !t.exists).map((t) => t.table) ?? [];
        ctx.logger.info(`${p.name}: reachable${r.serverVersion ? ` (${r.serverVersion.split('\n')[0].slice(0, 120)})` : ''}, ${r.latencyMs} ms${r.tables ? `; ${r.tables.length - missing.length} of ${r.tables.length} tables present${missing.length ? ` (missing: ${missing.join(', ')})` : ''}` : ''}`);
        if (r.error) ctx.logger.warn(r.error);
        return r;
      }
      // Unreachable is the test's answer and fails the run, carrying the result for the page.
      throw Object.assign(new AppError('unavailable', `connections: ${p.name} is unreachable: ${r.error}`), { result: r });
    },
  },
  {
    kind: 'connections.catalog',
    description: "Browse a source connection's catalog: its schemas, or one schema's tables with columns, primary keys and watermark candidates",
    role: 'operator' as const,
    payload: CatalogRequest,
    check: (deps: JobDeps, p: CatalogRequest) => checkNamedConnection(deps, p.name),
    async run(ctx: RunContext, p: CatalogRequest): Promise<unknown> {
      const { browseCatalog } = await import('./browse-catalog');
      const r = await browseCatalog(await storeOf(ctx), p.name, { schema: p.schema, oracleClientLibDir: ctx.env.ORACLE_CLIENT_LIB_DIR });
      ctx.logger.info(p.schema ? `${p.name}: ${r.tables?.length ?? 0} tables and views in ${p.schema}` : `${p.name}: ${r.schemas?.length ?? 0} schemas`);
      return r;
    },
  },
];
