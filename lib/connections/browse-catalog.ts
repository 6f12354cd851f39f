import { AppError } from '../errors';
import { listCatalogTables, listSchemas, openSourceExecutor, type CatalogTable } from '../sources';
import { resolveConnection, type ConnectionsContext } from './store';
import { sourceDescriptorOf } from './source-descriptor';

/** What a catalog browse answers: the schemas, or one schema's tables. */
export interface CatalogBrowse {
  connection: string;
  engine: 'postgres' | 'oracle';
  schemas?: string[];
  schema?: string;
  tables?: CatalogTable[];
}

/**
 * Browse a source connection's own catalog (the Tables page's picker): with no
 * schema its schemas, with one that schema's tables, columns, primary keys and
 * watermark candidates. Read-only catalog queries with a per-statement timeout.
 */
export async function browseCatalog(ctx: ConnectionsContext, name: string, o: { schema?: string; oracleClientLibDir?: string; timeoutMs?: number } = {}): Promise<CatalogBrowse> {
  const c = await resolveConnection(ctx, name);
  if (!c) throw new AppError('not_found', `connections: no connection named '${name}'`, { field: 'params.name' });
  if (c.kind !== 'postgres' && c.kind !== 'oracle') throw new AppError('validation', `connections: '${name}' is a ${c.kind} connection; only postgres and oracle sources have a catalog to browse`, { field: 'params.name' });
  const exec = await openSourceExecutor(sourceDescriptorOf(c), { defaultTimeoutMs: o.timeoutMs ?? 30_000, oracleClientLibDir: o.oracleClientLibDir });
  try {
    if (!o.schema) return { connection: c.name, engine: exec.engine, schemas: await listSchemas(exec) };
    return { connection: c.name, engine: exec.engine, schema: o.schema, tables: await listCatalogTables(exec, o.schema) };
  } finally {
    await exec.close().catch(() => {}); // read-only session: a failed close loses nothing
  }
}
