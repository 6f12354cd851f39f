import type { Env } from '../../config/env';
import { builtinConnections, listConnections, type ConnectionsContext, type ConnectionView } from '../../connections';

/**
 * The connections store as the web process opens it (same key source as the
 * CLI and the worker), with the environment's read-only built-ins (`env:striim`, `env:source`).
 */
export function connectionsContext(deps: { pool: ConnectionsContext['pool']; env: Pick<Env, 'TRIBUTARY_SECRET' | 'dataDir'> & Partial<Env> }): ConnectionsContext {
  return { pool: deps.pool, keys: { secret: deps.env.TRIBUTARY_SECRET, dataDir: deps.env.dataDir }, builtins: builtinConnections(deps.env) };
}

/**
 * A connection by its id or its name (`/api/v1/connections/:id` takes either;
 * `lib/connections` addresses connections by name).
 */
export async function findConnection(ctx: ConnectionsContext, idOrName: string): Promise<ConnectionView | null> {
  const all = await listConnections(ctx);
  return all.find((c) => c.id === idOrName) ?? all.find((c) => c.name === idOrName) ?? null;
}
