/**
 * The catalog interface (as pyiceberg's `Catalog`, iceberg-rust's `Catalog`):
 * namespaces, table rows and the one commit point, `commitTable(ident,
 * requirements, updates)`. `sql-catalog.ts` implements it over Postgres; a
 * table opened from a folder has no catalog (read-only). Identifier rules are
 * checked here, before any implementation writes anything.
 */
import { AppError } from '../errors';
import type { TableRequirement, TableUpdate } from './table-update';
import type { TableMetadata } from './types';

export interface TableIdent { namespace: string; name: string }

export interface LoadedTable { metadata: TableMetadata; metadataLocation: string }

export interface Catalog {
  readonly name: string;
  namespaceExists(ns: string): Promise<boolean>;
  /** Create the namespace, or set these properties on it (upsert). */
  setNamespaceProperties(ns: string, props: Record<string, string>): Promise<void>;
  /** Remove these properties, or every property (which drops the namespace) when `keys` is omitted. */
  removeNamespaceProperties(ns: string, keys?: string[]): Promise<void>;
  listNamespaces(): Promise<string[]>;
  namespaceProperties(ns: string): Promise<Record<string, string>>;
  listTables(ns?: string): Promise<TableIdent[]>;
  /** The table's current metadata location, or null when it does not exist. */
  metadataLocation(ident: TableIdent): Promise<string | null>;
  /**
   * Every table row in this database, of any catalog name, whose current metadata file lies below
   * `folder`: the tables that share or nest inside a table's folder (a renamed table keeps its old
   * location, a nested namespace's tables live below its parent's), whose files an orphan sweep
   * of that folder must keep. Views' rows (`view`: true) are listed too: their metadata file is kept, not read.
   */
  tablesUnder(folder: string): Promise<{ catalog: string; ident: TableIdent; metadataLocation: string; view: boolean }[]>;
  /** The table's current metadata, or null when it does not exist. */
  loadTable(ident: TableIdent): Promise<LoadedTable | null>;
  /** Write the first metadata file and register the table; `conflict` when it exists. */
  createTable(ident: TableIdent, metadata: TableMetadata): Promise<LoadedTable>;
  /** Remove the table's row; false when it did not exist. Files are not touched. */
  dropTable(ident: TableIdent): Promise<boolean>;
  renameTable(from: TableIdent, to: TableIdent): Promise<void>;
  /**
   * Check `requirements` against the current metadata, apply `updates` to it,
   * write the next metadata file and swap it in. Throws `CommitFailed` when a
   * requirement is not met or a concurrent commit won the swap.
   */
  commitTable(ident: TableIdent, requirements: TableRequirement[], updates: TableUpdate[]): Promise<LoadedTable>;
}

/**
 * Longest namespace part or table name: a folder name on every common
 * filesystem (NAME_MAX, 255 bytes) and the catalog's varchar(255) columns.
 */
export const MAX_NAME_BYTES = 255;
/** `metadata_location` is a varchar(1000) in the SqlCatalog / JdbcCatalog layout. */
export const MAX_LOCATION_CHARS = 1000;

const NAME = /^[A-Za-z0-9_-]+$/;

/** `ns.table` → parts; the namespace is everything before the last dot. */
export function parseIdent(ident: string, defaultNamespace?: string): TableIdent {
  const i = ident.lastIndexOf('.');
  if (i < 0) {
    if (!defaultNamespace) throw new AppError('validation', `lake: table name ${ident} must be namespace.table`, { field: 'table' });
    return { namespace: defaultNamespace, name: ident };
  }
  const namespace = ident.slice(0, i), name = ident.slice(i + 1);
  if (!namespace || !name) throw new AppError('validation', `lake: bad table name ${ident}`, { field: 'table' });
  return { namespace, name };
}

export const identString = (t: TableIdent) => `${t.namespace}.${t.name}`;

const tooLong = (s: string) => Buffer.byteLength(s, 'utf8') > MAX_NAME_BYTES;

/** A namespace the catalog accepts: dot-separated non-empty parts, no path separators, each part and the whole within 255 bytes. */
export function validateNamespace(ns: string): void {
  if (!ns || /[/\\]/.test(ns) || ns.split('.').some((p) => !p)) throw new AppError('validation', `lake: bad namespace name ${ns}`, { field: 'namespace' });
  if (tooLong(ns)) throw new AppError('validation', `lake: namespace ${ns.slice(0, 40)}… is ${Buffer.byteLength(ns)} bytes long; at most ${MAX_NAME_BYTES}`, { field: 'namespace' });
}

/** A table identifier the lake creates: letters, digits, `_` and `-` in every part, each within 255 bytes. */
export function validateTableIdent(t: TableIdent): void {
  const ident = identString(t);
  if (!NAME.test(t.name) || t.namespace.split('.').some((p) => !NAME.test(p))) throw new AppError('validation', `lake: bad table name ${ident} (letters, digits, _ and -)`, { field: 'table' });
  validateNamespace(t.namespace);
  if (tooLong(t.name)) throw new AppError('validation', `lake: table name ${t.name.slice(0, 40)}… is ${Buffer.byteLength(t.name)} bytes long; at most ${MAX_NAME_BYTES}`, { field: 'table' });
}
