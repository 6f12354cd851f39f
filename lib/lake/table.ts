/**
 * One Iceberg table: the public surface (`LakeTable`). Each operation lives in
 * its own file and commits through `commit.ts`; this class holds the table's
 * current metadata and hands itself to them as their `TableHandle`.
 */
import type * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import { append, appendDataFiles } from './append';
import type { TableIdent } from './catalog';
import { compact, type CompactOptions } from './compact';
import { deleteWhere } from './delete';
import { evolveSchema } from './evolve';
import { expireSnapshots, type ExpireOptions } from './expire';
import { merge } from './merge';
import { removeOrphanFiles, type RemoveOrphansOptions, type RemoveOrphansResult } from './orphans';
import { overwrite, replaceDataFiles, type OverwriteOptions } from './overwrite';
import { codecOf } from './parquet';
import { scanTable, tableFiles } from './read';
import { currentSchema, specById, type TableView } from './scan';
import { arrowSchemaOf } from './schema';
import type { LakeCtx, TableHandle } from './table-context';
import type {
  Batches, CommitResult, DataFileInfo, DeleteOptions, IcebergSchema, MergeOptions, MergeResult, ScanOptions, Snapshot, TableMetadata,
} from './types';
import { DataFileWriter } from './writer';
import type { LakeTable } from './index';

export class LakeTableImpl implements LakeTable, TableHandle {
  readonly ident: string;
  readonly tableIdent: TableIdent;
  constructor(
    readonly ctx: LakeCtx, namespace: string, name: string, private meta: TableMetadata, private metaLoc: string,
    /** Maps paths recorded in metadata to readable URIs (tables written elsewhere, opened from a folder). */
    private readonly resolve: (p: string) => string = (p) => p,
  ) {
    this.tableIdent = { namespace, name };
    this.ident = `${namespace}.${name}`;
  }

  get location(): string { return this.meta.location; }
  metadata(): TableMetadata { return this.meta; }
  metadataLocation(): string { return this.metaLoc; }
  schema(): IcebergSchema { return currentSchema(this.meta); }
  arrowSchema(): arrow.Schema { return arrowSchemaOf(this.schema()); }
  currentSnapshotId(): bigint | null {
    // readMetadata turns -1, null and an absent id alike into null
    return this.meta['current-snapshot-id'];
  }
  snapshots(): Snapshot[] { return this.meta.snapshots; }

  view(meta = this.meta): TableView {
    return { ident: this.ident, storage: this.ctx.storage, metadata: meta, resolve: this.resolve, cache: this.ctx.cache };
  }

  prop(k: string, d: number): number {
    const v = this.meta.properties[k];
    return v === undefined ? d : Number(v);
  }

  writer(schema = this.schema()): DataFileWriter {
    return new DataFileWriter({
      storage: this.ctx.storage, location: this.location, schema, arrowSchema: arrowSchemaOf(schema),
      spec: specById(this.meta, this.meta['default-spec-id']),
      targetFileSize: this.prop('write.target-file-size-bytes', 128 * 1024 * 1024),
      codec: codecOf(this.meta.properties['write.parquet.compression-codec']),
    });
  }

  adopt(meta: TableMetadata, loc: string): void { this.meta = meta; this.metaLoc = loc; }

  async refresh(): Promise<void> {
    const catalog = this.ctx.catalog;
    if (!catalog) return; // opened from a folder: nothing to re-read it from
    const loc = await catalog.metadataLocation(this.tableIdent);
    if (loc === this.metaLoc) return;
    const r = loc === null ? null : await catalog.loadTable(this.tableIdent);
    if (!r) throw new AppError('not_found', `lake: table ${this.ident} no longer exists`);
    this.adopt(r.metadata, r.metadataLocation);
  }

  append(batches: Batches): Promise<CommitResult> { return append(this, batches); }
  appendDataFiles(paths: string[]): Promise<CommitResult> { return appendDataFiles(this, paths); }
  replaceDataFiles(paths: string[], opts?: OverwriteOptions): Promise<CommitResult> { return replaceDataFiles(this, paths, opts); }
  overwrite(batches: Batches, opts?: OverwriteOptions): Promise<CommitResult> { return overwrite(this, batches, opts); }
  merge(batches: Batches, opts: MergeOptions): Promise<MergeResult> { return merge(this, batches, opts); }
  deleteWhere(opts: DeleteOptions): Promise<CommitResult & { deleted: number }> { return deleteWhere(this, opts); }
  scan(opts?: ScanOptions): AsyncGenerator<arrow.RecordBatch> { return scanTable(this, opts); }
  files(snapshotId?: bigint): Promise<DataFileInfo[]> { return tableFiles(this, snapshotId); }
  evolveSchema(target: arrow.Schema): Promise<{ changes: string[]; rewritten: boolean }> { return evolveSchema(this, target); }
  compact(opts?: CompactOptions): Promise<CommitResult> { return compact(this, opts); }
  expireSnapshots(opts?: ExpireOptions): Promise<{ expiredSnapshots: number; deletedFiles: string[] }> { return expireSnapshots(this, opts); }
  removeOrphanFiles(opts?: RemoveOrphansOptions): Promise<RemoveOrphansResult> { return removeOrphanFiles(this, opts); }
}
