/**
 * The SQL catalog: rows in `iceberg_tables` / `iceberg_namespace_properties`,
 * laid out as pyiceberg's SqlCatalog and Iceberg's JdbcCatalog expect, so
 * those tools can open the same lake. Every SQL statement of the lake is here.
 *
 * Commit (spec: "Commit Conflict Resolution and Retry"): the requirements are
 * checked against the current metadata, the updates applied to it, the next
 * `v<N>.metadata.json` created exclusively (two writers never overwrite each
 * other's file), then one compare-and-swap of `metadata_location` — the commit
 * point — and `version-hint.text` for file-based readers.
 */
import type pg from 'pg';
import { AppError } from '../errors';
import { Lru } from '../cache/lru';
import type { Logger } from '../log';
import { identString, type Catalog, type LoadedTable, type TableIdent } from './catalog';
import { catalogTables, IS_TABLE } from './catalog-tables';
import { metadataFile, metadataVersion, readMetadata, serialiseMetadata, withMetadataLog } from './metadata';
import type { Storage } from './storage';
import { applyUpdates, checkRequirements, CommitFailed } from './table-update';
import type { TableMetadata } from './types';

export interface SqlCatalogOptions {
  pool: pg.Pool;
  /** `catalog_name` of the rows. */
  name: string;
  storage: Storage;
  logger: Logger;
}

/** Metadata files are immutable: parsed ones are kept by location (a few per table). */
const CACHE_MAX = 64;

type NamespaceOps = Pick<Catalog, 'namespaceExists' | 'setNamespaceProperties' | 'removeNamespaceProperties' | 'listNamespaces' | 'namespaceProperties'>;

/** The catalog's namespaces: rows of `iceberg_namespace_properties` (and namespaces that hold tables). */
function namespaceOps(pool: SqlCatalogOptions['pool'], catalog: string): NamespaceOps {
  return {
    async namespaceExists(ns) {
      const r = await pool.query(
        `select 1 from iceberg_namespace_properties where catalog_name = $1 and namespace = $2
         union all select 1 from iceberg_tables where catalog_name = $1 and table_namespace = $2 limit 1`, [catalog, ns]);
      return (r.rowCount ?? 0) > 0;
    },
    async setNamespaceProperties(ns, props) {
      // pyiceberg marks a namespace with the property `exists` = `true`.
      for (const [k, v] of Object.entries({ exists: 'true', ...props })) {
        await pool.query(
          `insert into iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) values ($1, $2, $3, $4)
           on conflict (catalog_name, namespace, property_key) do update set property_value = excluded.property_value`, [catalog, ns, k, v]);
      }
    },
    async removeNamespaceProperties(ns, keys) {
      if (keys) await pool.query(`delete from iceberg_namespace_properties where catalog_name = $1 and namespace = $2 and property_key = any($3)`, [catalog, ns, keys]);
      else await pool.query(`delete from iceberg_namespace_properties where catalog_name = $1 and namespace = $2`, [catalog, ns]);
    },
    async listNamespaces() {
      const r = await pool.query<{ ns: string }>(
        `select namespace as ns from iceberg_namespace_properties where catalog_name = $1
         union select table_namespace from iceberg_tables where catalog_name = $1 order by 1`, [catalog]);
      return r.rows.map((x) => x.ns);
    },
    async namespaceProperties(ns) {
      const r = await pool.query<{ k: string; v: string | null }>(
        `select property_key as k, property_value as v from iceberg_namespace_properties where catalog_name = $1 and namespace = $2`, [catalog, ns]);
      // Properties are string → string (Iceberg's namespace model): a NULL value, which JdbcCatalog's schema
      // allows and another writer may leave, is no value; it is left out rather than shown as "".
      return Object.fromEntries(r.rows.flatMap((x) => (x.v === null ? [] : [[x.k, x.v]])));
    },
  };
}

/** `version-hint.text` for file-based readers: raised to `v`, never lowered. */
async function writeVersionHint(storage: Storage, location: string, v: number): Promise<void> {
  const hint = `${location}/metadata/version-hint.text`;
  try {
    const cur = Number(new TextDecoder().decode(await storage.read(hint)).trim());
    if (Number.isFinite(cur) && cur >= v) return;
  } catch { /* no hint yet: the first commit writes it */ }
  await storage.write(hint, new TextEncoder().encode(String(v)));
}

/** Write a new table's first metadata file at the first free v<N>: a dropped (not purged) table may have left its metadata in this folder. */
async function writeFirstFreeVersion(storage: Storage, location: string, bytes: Uint8Array, ident: string): Promise<{ loc: string; v: number }> {
  for (let v = 1; v < 10_000; v++) {
    const cand = metadataFile(location, v);
    if (await storage.writeExclusive(cand, bytes)) return { loc: cand, v };
  }
  throw new AppError('fatal', `lake: cannot create metadata for ${ident}`);
}

export function sqlCatalog(o: SqlCatalogOptions): Catalog {
  const { pool, name: catalog, storage } = o;
  const cache = new Lru<string, TableMetadata>({ max: CACHE_MAX });
  const read = async (loc: string, ident: string) => {
    const hit = cache.get(loc);
    if (hit) return hit;
    const m = await readMetadata(storage, loc, ident);
    cache.set(loc, m);
    return m;
  };

  const metadataLocation = async (t: TableIdent): Promise<string | null> => {
    const r = await pool.query<{ m: string }>(
      `select metadata_location as m from iceberg_tables where catalog_name = $1 and table_namespace = $2 and table_name = $3 and ${IS_TABLE}`,
      [catalog, t.namespace, t.name]);
    return r.rows[0]?.m ?? null;
  };

  const cat: Catalog = {
    name: catalog,
    ...namespaceOps(pool, catalog),
    listTables: (ns) => catalogTables(pool, catalog, ns),
    metadataLocation,
    async tablesUnder(folder) {
      const like = `${folder.replace(/\/+$/, '').replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
      const r = await pool.query<{ c: string; ns: string; n: string; m: string; v: boolean }>(
        `select catalog_name as c, table_namespace as ns, table_name as n, metadata_location as m, not ${IS_TABLE} as v from iceberg_tables
         where metadata_location like $1 order by 1, 2, 3`, [like]);
      return r.rows.map((x) => ({ catalog: x.c, ident: { namespace: x.ns, name: x.n }, metadataLocation: x.m, view: x.v }));
    },
    async loadTable(t) {
      const loc = await metadataLocation(t);
      if (!loc) return null;
      // read from storage, not the cache: a load is where a damaged metadata file must show
      const metadata = await readMetadata(storage, loc, identString(t));
      cache.set(loc, metadata);
      return { metadata, metadataLocation: loc };
    },
    async createTable(t, metadata) {
      const ident = identString(t);
      const bytes = serialiseMetadata(metadata);
      const { loc, v } = await writeFirstFreeVersion(storage, metadata.location, bytes, ident);
      if (!(await cat.namespaceExists(t.namespace))) await cat.setNamespaceProperties(t.namespace, {});
      const r = await pool.query(
        `insert into iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type)
         values ($1, $2, $3, $4, null, 'TABLE') on conflict do nothing`, [catalog, t.namespace, t.name, loc]);
      if ((r.rowCount ?? 0) !== 1) {
        await storage.delete(loc);
        throw new AppError('conflict', `lake: table ${ident} already exists`);
      }
      await writeVersionHint(storage, metadata.location, v);
      cache.set(loc, metadata);
      return { metadata, metadataLocation: loc };
    },
    async dropTable(t) {
      const r = await pool.query(`delete from iceberg_tables where catalog_name = $1 and table_namespace = $2 and table_name = $3 and ${IS_TABLE}`, [catalog, t.namespace, t.name]);
      return (r.rowCount ?? 0) === 1;
    },
    async renameTable(from, to) {
      if (!(await cat.namespaceExists(to.namespace))) await cat.setNamespaceProperties(to.namespace, {});
      try {
        const r = await pool.query(
          `update iceberg_tables set table_namespace = $4, table_name = $5 where catalog_name = $1 and table_namespace = $2 and table_name = $3 and ${IS_TABLE}`,
          [catalog, from.namespace, from.name, to.namespace, to.name]);
        if ((r.rowCount ?? 0) !== 1) throw new AppError('not_found', `lake: table ${identString(from)} does not exist`);
      } catch (e) {
        if ((e as { code?: string }).code === '23505') throw new AppError('conflict', `lake: table ${identString(to)} already exists`);
        throw e;
      }
    },
    async commitTable(t, requirements, updates) {
      const ident = identString(t);
      const baseLoc = await metadataLocation(t);
      if (!baseLoc) throw new AppError('not_found', `lake: table ${ident} no longer exists`);
      const base = await read(baseLoc, ident);
      checkRequirements(base, requirements, ident);
      const next = withMetadataLog(applyUpdates(base, updates), { file: baseLoc, ts: base['last-updated-ms'] });
      const bytes = serialiseMetadata(next);
      let loc: string | null = null; let v = metadataVersion(baseLoc) + 1; let moved = false;
      for (let k = 0; k < 64 && !loc && !moved; k++, v++) {
        const cand = metadataFile(next.location, v);
        if (await storage.writeExclusive(cand, bytes)) { loc = cand; break; }
        // v<N> is taken: a concurrent writer is committing (we will lose the swap),
        // or a crashed writer left it behind (the catalog has not moved: take the next number).
        moved = (await metadataLocation(t)) !== baseLoc;
      }
      if (!loc && !moved) throw new AppError('conflict', `lake: table ${ident}: could not create a new metadata file after v${v}`);
      const swapped = !!loc && ((await pool.query(
        `update iceberg_tables set metadata_location = $5, previous_metadata_location = $4
         where catalog_name = $1 and table_namespace = $2 and table_name = $3 and metadata_location = $4 and ${IS_TABLE}`,
        [catalog, t.namespace, t.name, baseLoc, loc])).rowCount ?? 0) === 1;
      if (!swapped) {
        if (loc) await storage.delete(loc);
        throw new CommitFailed(`lake: ${ident}: a concurrent commit moved the table`);
      }
      cache.set(loc!, next);
      // The commit is done (the catalog moved): a hint the store refused now must not report it failed — a
      // caller would run it again and, for an append, double it. The hint only serves catalog-less readers,
      // and the next commit writes it again.
      await writeVersionHint(storage, next.location, v).catch((e: Error) =>
        o.logger.warn(`lake: ${ident}: committed, but version-hint.text was not updated`, { error: e.message }));
      return { metadata: next, metadataLocation: loc! };
    },
  };
  return cat;
}
