/**
 * What every operation file gets from the table: its identity, current
 * metadata, storage, catalog and the helpers all operations share (a data-file
 * writer on the table's settings, clean-up of written files on failure).
 */
import type * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import type { Logger } from '../log';
import { conformBatch } from './arrow-util';
import type { Catalog, TableIdent } from './catalog';
import type { ManifestEntry } from './manifest';
import type { TableView } from './scan';
import type { Storage } from './storage';
import type { Batches, CommitResult, IcebergSchema, ScanOptions, TableMetadata } from './types';
import type { DataFileWriter } from './writer';
import type { Lru } from '../cache/lru';

export interface LakeCtx {
  /** Null for a table opened from its folder (read-only). */
  catalog: Catalog | null;
  storage: Storage;
  logger: Logger;
  /** Parsed manifests by URI (manifests are immutable). */
  cache: Lru<string, ManifestEntry[]>;
}

export interface TableHandle {
  readonly ident: string;
  readonly tableIdent: TableIdent;
  readonly location: string;
  readonly ctx: LakeCtx;
  /** The metadata the table was last loaded or committed at. */
  metadata(): TableMetadata;
  metadataLocation(): string;
  schema(): IcebergSchema;
  arrowSchema(): arrow.Schema;
  view(meta?: TableMetadata): TableView;
  /** A partitioned, rolling data-file writer on the table's properties. */
  writer(schema?: IcebergSchema): DataFileWriter;
  /** A numeric table property, or `d`. */
  prop(key: string, d: number): number;
  refresh(): Promise<void>;
  /** Take the metadata a commit produced. */
  adopt(meta: TableMetadata, loc: string): void;
  scan(opts?: ScanOptions): AsyncIterable<arrow.RecordBatch>;
}

/** The catalog to commit through; a table opened from a folder has none. */
export function catalogOf(t: TableHandle): Catalog {
  if (!t.ctx.catalog) throw new AppError('usage', `lake: table ${t.ident} was opened from its folder and is read-only`);
  return t.ctx.catalog;
}

async function* iterate(b: Batches): AsyncGenerator<arrow.RecordBatch> {
  for await (const x of b as AsyncIterable<arrow.RecordBatch>) yield x;
}

export async function collect(batches: Batches, schema: arrow.Schema, ident: string): Promise<arrow.RecordBatch[]> {
  const out: arrow.RecordBatch[] = [];
  for await (const b of iterate(batches)) if (b.numRows) out.push(conformBatch(b, schema, ident));
  return out;
}

/** Write every batch (conformed to the table schema) through `w`; returns the files written. */
export async function writeAll(t: TableHandle, w: DataFileWriter, batches: Batches) {
  const target = t.arrowSchema();
  for await (const b of iterate(batches)) await w.write(conformBatch(b, target, t.ident));
  return w.close();
}

/** The result of an operation that had nothing to commit. */
export function noop(loc: string): CommitResult {
  return { snapshotId: null, sequenceNumber: 0, metadataLocation: loc, addedDataFiles: 0, addedDeleteFiles: 0, removedFiles: 0, addedRecords: 0, attempts: 0 };
}

/** Run `body`; on failure delete the files it wrote so nothing half-done stays behind. */
export async function guarded<T>(t: TableHandle, files: () => string[] | Promise<string[]>, body: () => Promise<T>): Promise<T> {
  try { return await body(); } catch (e) {
    await Promise.all((await files()).map((p) => t.ctx.storage.delete(p).catch((err) => {
      // the operation's own error is the one to report; a file left behind is only litter
      t.ctx.logger.warn('lake: could not delete a file of a failed operation', { table: t.ident, file: p, error: (err as Error).message });
    })));
    throw e;
  }
}

/** Column index of `name` in the current schema, or a validation error naming the option. */
export function columnIndex(t: TableHandle, name: string, what: string, field: string): number {
  const i = t.schema().fields.findIndex((f) => f.name === name);
  if (i < 0) throw new AppError('validation', `lake: ${what} ${name} is not a column of ${t.ident}`, { field });
  return i;
}
