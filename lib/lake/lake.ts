import crypto from 'node:crypto';
import { AppError } from '../errors';
import { silentLogger } from '../log';
import {
  deleteNamespaceProperties, deleteTable, insertNamespace, insertTable, namespaceExists, parseIdent, renameTableRow,
  selectNamespaceProperties, selectNamespaces, selectTable, selectTables,
} from './catalog';
import { loadManifest, loadManifestList } from './scan';
import { icebergSchemaFromArrow, nameMapping } from './schema';
import { fileStorage, normaliseWarehouse, pathToUri, storageFor } from './storage';
import type { LakeTable } from './index';
import type pg from 'pg';
import { LakeTableImpl, readMetadata, type LakeCtx } from './table';
import type { PartitionSpec, TableMetadata } from './types';
import type { CreateTableOptions, Lake, LakeOptions } from './index';

export function openLakeImpl(opts: LakeOptions): Lake {
  const warehouse = normaliseWarehouse(opts.warehouse);
  const catalog = opts.catalogName ?? 'tributary';
  const ctx: LakeCtx = { pool: opts.pool, catalogName: catalog, storage: storageFor(warehouse, opts.s3), logger: opts.logger ?? silentLogger, cache: new Map() };
  const pool = opts.pool;

  const load = async (ident: string) => {
    const { namespace, name } = parseIdent(ident);
    const row = await selectTable(pool, catalog, namespace, name);
    if (!row) throw new AppError('not_found', `lake: table ${ident} does not exist`);
    const meta = await readMetadata(ctx.storage, row.metadataLocation, ident);
    return new LakeTableImpl(ctx, namespace, name, meta, row.metadataLocation);
  };

  const lake: Lake = {
    catalogName: catalog,
    warehouse,
    storage: ctx.storage,
    async createNamespace(ns, props = {}) {
      if (!ns || /[/\\]/.test(ns)) throw new AppError('validation', `lake: bad namespace name ${ns}`);
      if (await namespaceExists(pool, catalog, ns)) throw new AppError('conflict', `lake: namespace ${ns} already exists`);
      await insertNamespace(pool, catalog, ns, props);
    },
    listNamespaces: () => selectNamespaces(pool, catalog),
    async namespaceProperties(ns) {
      if (!(await namespaceExists(pool, catalog, ns))) throw new AppError('not_found', `lake: namespace ${ns} does not exist`);
      return selectNamespaceProperties(pool, catalog, ns);
    },
    async setNamespaceProperties(ns, props, remove = []) {
      if (!(await namespaceExists(pool, catalog, ns))) throw new AppError('not_found', `lake: namespace ${ns} does not exist`);
      if (remove.length) await deleteNamespaceProperties(pool, catalog, ns, remove);
      await insertNamespace(pool, catalog, ns, props);
    },
    async dropNamespace(ns) {
      const tables = await selectTables(pool, catalog, ns);
      if (tables.length) throw new AppError('conflict', `lake: namespace ${ns} is not empty (${tables.length} tables)`);
      if (!(await namespaceExists(pool, catalog, ns))) throw new AppError('not_found', `lake: namespace ${ns} does not exist`);
      await deleteNamespaceProperties(pool, catalog, ns);
    },
    async listTables(ns) {
      return (await selectTables(pool, catalog, ns)).map((t) => `${t.namespace}.${t.name}`);
    },
    async tableExists(ident) {
      const { namespace, name } = parseIdent(ident);
      return !!(await selectTable(pool, catalog, namespace, name));
    },
    async createTable(ident, o: CreateTableOptions) {
      const { namespace, name } = parseIdent(ident);
      if (!/^[A-Za-z0-9_\-]+$/.test(name) || namespace.split('.').some((p) => !/^[A-Za-z0-9_\-]+$/.test(p))) throw new AppError('validation', `lake: bad table name ${ident} (letters, digits, _ and -)`);
      if (await selectTable(pool, catalog, namespace, name)) throw new AppError('conflict', `lake: table ${ident} already exists`);
      if (!(await namespaceExists(pool, catalog, namespace))) await insertNamespace(pool, catalog, namespace, {}).catch(() => {});
      const schema = icebergSchemaFromArrow(o.schema);
      if (o.identifierColumns?.length) {
        schema['identifier-field-ids'] = o.identifierColumns.map((c) => {
          const f = schema.fields.find((x) => x.name === c);
          if (!f) throw new AppError('validation', `lake: identifier column ${c} is not in the schema`);
          if (!f.required) throw new AppError('validation', `lake: identifier column ${c} must be non-nullable`);
          return f.id;
        });
      }
      const spec: PartitionSpec = {
        'spec-id': 0,
        fields: (o.partitionBy ?? []).map((c, i) => {
          const f = schema.fields.find((x) => x.name === c);
          if (!f) throw new AppError('validation', `lake: partition column ${c} is not in the schema`);
          return { 'source-id': f.id, 'field-id': 1000 + i, name: c, transform: 'identity' };
        }),
      };
      const location = `${warehouse}/${namespace.split('.').join('/')}/${name}`;
      const now = Date.now();
      const meta: TableMetadata = {
        'format-version': 2,
        'table-uuid': crypto.randomUUID(),
        location,
        'last-sequence-number': 0,
        'last-updated-ms': now,
        'last-column-id': schema.fields.length,
        'current-schema-id': 0,
        schemas: [schema],
        'default-spec-id': 0,
        'partition-specs': [spec],
        'last-partition-id': spec.fields.length ? 999 + spec.fields.length : 999,
        'default-sort-order-id': 0,
        'sort-orders': [{ 'order-id': 0, fields: [] }],
        properties: {
          'write.format.default': 'parquet',
          'write.parquet.compression-codec': 'zstd',
          'write.target-file-size-bytes': String(128 * 1024 * 1024),
          'write.delete.mode': 'merge-on-read',
          'write.update.mode': 'merge-on-read',
          'write.merge.mode': 'merge-on-read',
          ...o.properties,
          'schema.name-mapping.default': nameMapping(schema),
        },
        'current-snapshot-id': null,
        snapshots: [],
        'snapshot-log': [],
        'metadata-log': [],
        refs: {},
      };
      const bytes = new TextEncoder().encode(JSON.stringify(meta, null, 2));
      // First free v<N>: a dropped (not purged) table may have left its metadata in this folder.
      let loc: string | null = null; let v = 1;
      for (; v < 10_000 && !loc; v++) {
        const cand = `${location}/metadata/v${v}.metadata.json`;
        if (await ctx.storage.writeExclusive(cand, bytes)) loc = cand;
      }
      if (!loc) throw new Error(`lake: cannot create metadata for ${ident}`);
      if (!(await insertTable(pool, catalog, namespace, name, loc))) {
        await ctx.storage.delete(loc);
        throw new AppError('conflict', `lake: table ${ident} already exists`);
      }
      await ctx.storage.write(`${location}/metadata/version-hint.text`, new TextEncoder().encode(String(v - 1)));
      return new LakeTableImpl(ctx, namespace, name, meta, loc);
    },
    loadTable: load,
    async dropTable(ident, o = {}) {
      const t = await load(ident);
      const { namespace, name } = parseIdent(ident);
      if (!(await deleteTable(pool, catalog, namespace, name))) throw new AppError('not_found', `lake: table ${ident} does not exist`);
      if (o.purge) {
        // Purge: every file any snapshot references, then whatever else is under the table folder.
        const meta = t.metadata();
        const view = { ident, storage: ctx.storage, metadata: meta, resolve: (p: string) => p, cache: ctx.cache };
        const files = new Set<string>();
        for (const s of meta.snapshots) {
          files.add(s['manifest-list']);
          try {
            for (const mf of await loadManifestList(view, s)) {
              files.add(mf.manifest_path);
              for (const e of await loadManifest(view, mf.manifest_path)) files.add(e.data_file.file_path);
            }
          } catch { /* already gone */ }
        }
        for (const f of files) await ctx.storage.delete(f);
        for (const f of await ctx.storage.list(t.location)) await ctx.storage.delete(f);
        ctx.cache.clear();
      }
    },
    async renameTable(from, to) {
      const a = parseIdent(from), b = parseIdent(to);
      if (!(await namespaceExists(pool, catalog, b.namespace))) await insertNamespace(pool, catalog, b.namespace, {});
      // The location stays where it is (Iceberg renames are catalog-only).
      await renameTableRow(pool, catalog, a, b);
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
  if (!metaName) throw new Error(`lake: no table metadata under ${dir}/metadata`);
  const loc = `${root}/metadata/${metaName}`;
  const meta = await readMetadata(storage, loc, dir);
  const recorded = meta.location.replace(/\/+$/, '');
  const resolve = (p: string) => (p.startsWith(recorded) ? root + p.slice(recorded.length) : p);
  const ctx: LakeCtx = { pool: null as unknown as pg.Pool, catalogName: '', storage, logger: silentLogger, cache: new Map() };
  return new LakeTableImpl(ctx, 'folder', dir.split('/').filter(Boolean).at(-1) ?? 'table', meta, loc, resolve);
}
