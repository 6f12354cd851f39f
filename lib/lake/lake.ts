/**
 * The lake: namespaces and tables over a `Catalog` (the SQL catalog in
 * Postgres), files under the warehouse. Identifiers are validated before
 * anything is written.
 */
import { AppError } from '../errors';
import { silentLogger } from '../log';
import {
  identString, MAX_LOCATION_CHARS, parseIdent, validateNamespace, validateTableIdent, type Catalog, type TableIdent,
} from './catalog';
import { metadataFile, newTableMetadata, readMetadata } from './metadata';
import { reachableFiles } from './reachability';
import { sqlCatalog } from './sql-catalog';
import { fileStorage, normaliseWarehouse, pathToUri, storageFor } from './storage';
import { LakeTableImpl } from './table';
import type { LakeCtx } from './table-context';
import type { CreateTableOptions, Lake, LakeOptions, LakeTable } from './index';
import { Lru } from '../cache/lru';

/** Parsed manifests kept per lake handle (manifests are immutable; a table's scan reads a few). */
const MANIFESTS_CACHED = 500;

export function openLakeImpl(opts: LakeOptions): Lake {
  const warehouse = normaliseWarehouse(opts.warehouse);
  const storage = storageFor(warehouse, opts.s3);
  const logger = opts.logger ?? silentLogger;
  const catalog: Catalog = sqlCatalog({ pool: opts.pool, name: opts.catalogName ?? 'tributary', storage, logger });
  const ctx: LakeCtx = { catalog, storage, logger, cache: new Lru({ max: MANIFESTS_CACHED }) };
  const locationOf = (t: TableIdent) => `${warehouse}/${t.namespace.split('.').join('/')}/${t.name}`;

  const load = async (ident: string) => {
    const t = parseIdent(ident);
    const r = await catalog.loadTable(t);
    if (!r) throw new AppError('not_found', `lake: table ${ident} does not exist`);
    return new LakeTableImpl(ctx, t.namespace, t.name, r.metadata, r.metadataLocation);
  };
  const mustExist = async (ns: string) => {
    if (!(await catalog.namespaceExists(ns))) throw new AppError('not_found', `lake: namespace ${ns} does not exist`);
  };

  const lake: Lake = {
    catalogName: catalog.name,
    warehouse,
    storage: ctx.storage,
    async createNamespace(ns, props = {}) {
      validateNamespace(ns);
      if (await catalog.namespaceExists(ns)) throw new AppError('conflict', `lake: namespace ${ns} already exists`);
      await catalog.setNamespaceProperties(ns, props);
    },
    listNamespaces: () => catalog.listNamespaces(),
    async namespaceProperties(ns) {
      await mustExist(ns);
      return catalog.namespaceProperties(ns);
    },
    async setNamespaceProperties(ns, props, remove = []) {
      await mustExist(ns);
      if (remove.length) await catalog.removeNamespaceProperties(ns, remove);
      await catalog.setNamespaceProperties(ns, props);
    },
    async dropNamespace(ns) {
      const tables = await catalog.listTables(ns);
      if (tables.length) throw new AppError('conflict', `lake: namespace ${ns} is not empty (${tables.length} tables)`);
      await mustExist(ns);
      await catalog.removeNamespaceProperties(ns);
    },
    async listTables(ns) {
      return (await catalog.listTables(ns)).map(identString);
    },
    async tableExists(ident) {
      return (await catalog.metadataLocation(parseIdent(ident))) !== null;
    },
    tableMetadataLocation: (ident) => catalog.metadataLocation(parseIdent(ident)),
    async createTable(ident, o: CreateTableOptions) {
      // Everything is checked before the first write: a refused table leaves no namespace or file behind.
      const t = parseIdent(ident);
      validateTableIdent(t);
      const location = locationOf(t);
      if (metadataFile(location, 99_999).length > MAX_LOCATION_CHARS) {
        throw new AppError('validation', `lake: table ${ident} would live at a location longer than ${MAX_LOCATION_CHARS} characters; use a shorter name`, { field: 'table' });
      }
      const meta = newTableMetadata(location, o);
      if (await catalog.metadataLocation(t)) throw new AppError('conflict', `lake: table ${ident} already exists`);
      const r = await catalog.createTable(t, meta);
      return new LakeTableImpl(ctx, t.namespace, t.name, r.metadata, r.metadataLocation);
    },
    loadTable: load,
    async dropTable(ident, o = {}) {
      const t = await load(ident);
      if (!(await catalog.dropTable(t.tableIdent))) throw new AppError('not_found', `lake: table ${ident} does not exist`);
      if (o.purge) {
        // Purge: every file any snapshot references (adopted files may live outside the table
        // folder), then whatever else is under the table folder (metadata, orphans).
        for (const f of await reachableFiles(t.view(), t.metadata().snapshots)) await storage.delete(f);
        for (const f of await storage.list(t.location)) await storage.delete(f);
        ctx.cache.clear();
      }
    },
    async renameTable(from, to) {
      const a = parseIdent(from), b = parseIdent(to);
      validateTableIdent(b);
      // The location stays where it is (Iceberg renames are catalog-only).
      await catalog.renameTable(a, b);
    },
  };
  return lake;
}

/**
 * Open a table from its folder alone, without a catalog (read-only use: scan,
 * files, metadata) — e.g. a table written by Spark, Java or Athena. The current
 * metadata is the one `version-hint.text` names, else the highest-numbered
 * metadata file; paths under the recorded location are mapped onto `dir`.
 */
export async function openTableFolderImpl(dir: string): Promise<LakeTable> {
  const storage = fileStorage();
  const root = pathToUri(dir).replace(/\/+$/, '');
  let metaName: string | null = null;
  try {
    const hint = new TextDecoder().decode(await storage.read(`${root}/metadata/version-hint.text`)).trim();
    if (hint) metaName = /metadata\.json$/.test(hint) ? hint : `v${hint}.metadata.json`;
  } catch { /* no hint: list */ }
  if (!metaName) {
    const names = (await storage.list(`${root}/metadata`)).map((u) => u.slice(u.lastIndexOf('/') + 1)).filter((n) => n.endsWith('.metadata.json'));
    const ver = (n: string) => Number(/^v?(\d+)/.exec(n)?.[1] ?? -1);
    names.sort((a, b) => ver(a) - ver(b));
    metaName = names.at(-1) ?? null;
  }
  if (!metaName) throw new AppError('not_found', `lake: no table metadata under ${dir}/metadata`);
  const loc = `${root}/metadata/${metaName}`;
  const meta = await readMetadata(storage, loc, dir);
  const recorded = meta.location.replace(/\/+$/, '');
  const resolve = (p: string) => (p.startsWith(recorded) ? root + p.slice(recorded.length) : p);
  const ctx: LakeCtx = { catalog: null, storage, logger: silentLogger, cache: new Lru({ max: MANIFESTS_CACHED }) };
  return new LakeTableImpl(ctx, 'folder', dir.split('/').filter(Boolean).at(-1) ?? 'table', meta, loc, resolve);
}
