/**
 * Optimistic commits (spec: "Commit Conflict Resolution and Retry"): write
 * every new file first, then a new `v<N>.metadata.json` created exclusively,
 * then one compare-and-swap of `metadata_location` in the catalog. On a lost
 * race the new metadata is built again on top of the winner's — when the
 * operation allows it — and the swap retried; otherwise a clear conflict error.
 */
import crypto from 'node:crypto';
import { AppError } from '../errors';
import {
  partitionKey, summarisePartitions, writeManifest, writeManifestList,
  type DataFileRec, type ManifestEntry, type ManifestFile,
} from './manifest';
import { currentSchema, loadManifest, loadManifestList, snapshotById, specById, type PlannedFile, type TableView } from './scan';
import type { Snapshot, TableMetadata } from './types';

export class CommitConflict extends AppError {
  constructor(message: string) { super('conflict', message); this.name = 'CommitConflict'; }
}

export interface Change {
  operation: 'append' | 'overwrite' | 'delete' | 'replace';
  /** New data and delete files (content tells which). */
  added: DataFileRec[];
  /** Live files this change removes, as planned against the base. */
  removed: PlannedFile[];
  /**
   * Partitions (`specId/partitionKey`) this change read or rewrote: a concurrent
   * commit touching one of them is a conflict. `all` = any concurrent data
   * change conflicts; null = never (blind append).
   */
  touched: Set<string> | 'all' | null;
  /** Replace the current schema by this one (same commit). */
  schema?: TableMetadata['schemas'][number];
  properties?: Record<string, string>;
}

export function newSnapshotId(): bigint {
  // Positive and below 2^53 so the id survives JSON readers that use doubles.
  return BigInt(crypto.randomInt(1, 2 ** 47)) * 64n + BigInt(crypto.randomInt(0, 64));
}

const uuid = () => crypto.randomUUID();

/** Partitions changed by snapshots committed after `base` (for conflict checks). */
export async function changedSince(view: TableView, base: TableMetadata): Promise<{ parts: Set<string>; count: number }> {
  const baseSeq = base['last-sequence-number'];
  const parts = new Set<string>();
  let count = 0;
  for (const s of view.metadata.snapshots) {
    if (s['sequence-number'] <= baseSeq) continue;
    count++;
    const id = BigInt(s['snapshot-id']);
    for (const mf of await loadManifestList(view, s)) {
      if (mf.added_snapshot_id !== id) continue;
      const spec = specById(view.metadata, mf.partition_spec_id);
      for (const e of await loadManifest(view, mf.manifest_path)) {
        if (e.status === 0 || e.snapshot_id !== id && e.snapshot_id !== null) continue;
        parts.add(`${mf.partition_spec_id}/${partitionKey(e.data_file.partition, spec)}`);
      }
    }
  }
  return { parts, count };
}

/** Verify a change still applies on top of `view.metadata` after a lost race from `base`. */
export async function checkRebase(view: TableView, base: TableMetadata, change: Change): Promise<void> {
  const cur = view.metadata;
  if (cur['current-schema-id'] !== base['current-schema-id']) throw new CommitConflict(`lake: ${view.ident}: schema changed by a concurrent commit; retry the ${change.operation}`);
  if (change.touched === null) return;
  const { parts, count } = await changedSince(view, base);
  if (count === 0) return;
  if (change.touched === 'all') throw new CommitConflict(`lake: ${view.ident}: concurrent commit while running a whole-table ${change.operation}; retry it`);
  for (const p of parts) {
    if (change.touched.has(p)) throw new CommitConflict(`lake: ${view.ident}: a concurrent commit changed partition ${p.split('/').slice(1).join('/')} that this ${change.operation} also changes; retry it`);
  }
}

const sum = (files: DataFileRec[], f: (d: DataFileRec) => bigint | number) => files.reduce((s, d) => s + BigInt(f(d)), 0n);

/**
 * Build the manifests, manifest list and metadata of a new snapshot on top of
 * `base`. Returns the metadata and every file written (deleted if the swap fails).
 */
export async function buildSnapshot(view: TableView, base: TableMetadata, change: Change, snapshotId: bigint, attempt: number): Promise<{ meta: TableMetadata; written: string[] }> {
  const written: string[] = [];
  const location = base.location;
  const schema = change.schema ?? currentSchema(base);
  const spec = specById(base, base['default-spec-id']);
  const parent = snapshotById(base, base['current-snapshot-id']);
  const seq = BigInt(base['last-sequence-number'] + 1);
  const baseView: TableView = { ...view, metadata: base };
  const manifests = parent ? await loadManifestList(baseView, parent) : [];
  const inList = new Set(manifests.map((m) => m.manifest_path));

  // Manifests holding removed files are rewritten: removed → DELETED, others → EXISTING.
  const removedByManifest = new Map<string, Set<string>>();
  for (const r of change.removed) {
    if (!inList.has(r.manifestPath)) throw new CommitConflict(`lake: ${view.ident}: file ${r.entry.data_file.file_path} was changed by a concurrent commit`);
    let s = removedByManifest.get(r.manifestPath); if (!s) removedByManifest.set(r.manifestPath, (s = new Set())); s.add(r.entry.data_file.file_path);
  }
  const out: ManifestFile[] = [];
  const removedFiles: DataFileRec[] = [];
  const writeOne = async (entries: ManifestEntry[], content: 0 | 1, specId: number): Promise<ManifestFile> => {
    const mspec = specById(base, specId);
    const bytes = writeManifest(entries, schema, mspec, content === 0 ? 'data' : 'deletes');
    const path = `${location}/metadata/${uuid()}-m${out.length}.avro`;
    await view.storage.write(path, bytes);
    written.push(path);
    const live = entries.filter((e) => e.status !== 2);
    const of = (st: number) => entries.filter((e) => e.status === st);
    const minSeq = live.reduce((m, e) => { const s = e.sequence_number ?? seq; return s < m ? s : m; }, seq);
    return {
      manifest_path: path, manifest_length: BigInt(bytes.length), partition_spec_id: specId, content,
      sequence_number: seq, min_sequence_number: minSeq, added_snapshot_id: snapshotId,
      added_files_count: of(1).length, existing_files_count: of(0).length, deleted_files_count: of(2).length,
      added_rows_count: sum(of(1).map((e) => e.data_file), (d) => d.record_count),
      existing_rows_count: sum(of(0).map((e) => e.data_file), (d) => d.record_count),
      deleted_rows_count: sum(of(2).map((e) => e.data_file), (d) => d.record_count),
      partitions: summarisePartitions(live.map((e) => e.data_file), schema, mspec),
      key_metadata: null,
    };
  };

  const addedData = change.added.filter((d) => d.content === 0);
  const addedDeletes = change.added.filter((d) => d.content !== 0);
  const added = (d: DataFileRec): ManifestEntry => ({ status: 1, snapshot_id: snapshotId, sequence_number: null, file_sequence_number: null, data_file: d });
  if (addedData.length) out.push(await writeOne(addedData.map(added), 0, spec['spec-id']));
  if (addedDeletes.length) out.push(await writeOne(addedDeletes.map(added), 1, spec['spec-id']));

  for (const mf of manifests) {
    const rm = removedByManifest.get(mf.manifest_path);
    if (!rm) {
      // Drop manifests with nothing live left (only DELETED entries of an older snapshot).
      if (mf.added_files_count + mf.existing_files_count > 0) out.push(mf);
      continue;
    }
    const entries = await loadManifest(baseView, mf.manifest_path);
    const next: ManifestEntry[] = [];
    let found = 0;
    for (const e of entries) {
      if (e.status === 2) continue;
      const ds = e.sequence_number ?? mf.sequence_number, fs = e.file_sequence_number ?? mf.sequence_number;
      if (rm.has(e.data_file.file_path)) {
        found++;
        removedFiles.push(e.data_file);
        next.push({ status: 2, snapshot_id: snapshotId, sequence_number: ds, file_sequence_number: fs, data_file: e.data_file });
      } else {
        next.push({ status: 0, snapshot_id: e.snapshot_id ?? mf.added_snapshot_id, sequence_number: ds, file_sequence_number: fs, data_file: e.data_file });
      }
    }
    if (found !== rm.size) throw new CommitConflict(`lake: ${view.ident}: files to remove are no longer live in ${mf.manifest_path}`);
    out.push(await writeOne(next, mf.content, mf.partition_spec_id));
  }

  // Snapshot summary (spec: "Snapshot Summary"): exact totals, so engines that answer count() from it are right.
  const prev = parent?.summary ?? ({} as Record<string, string>);
  const t = (k: string) => BigInt(prev[k] ?? '0');
  const rd = removedFiles.filter((d) => d.content === 0), rp = removedFiles.filter((d) => d.content === 1), re = removedFiles.filter((d) => d.content === 2);
  const ap = addedDeletes.filter((d) => d.content === 1), ae = addedDeletes.filter((d) => d.content === 2);
  const recs = (l: DataFileRec[]) => sum(l, (d) => d.record_count);
  const size = (l: DataFileRec[]) => sum(l, (d) => d.file_size_in_bytes);
  const parts = new Set([...change.added, ...removedFiles].map((d) => partitionKey(d.partition, spec)));
  const summary: Record<string, string> = { operation: change.operation };
  const put = (k: string, v: bigint) => { if (v !== 0n) summary[k] = String(v); };
  put('added-data-files', BigInt(addedData.length)); put('added-records', recs(addedData)); put('added-files-size', size(change.added));
  put('deleted-data-files', BigInt(rd.length)); put('deleted-records', recs(rd)); put('removed-files-size', size(removedFiles));
  put('added-delete-files', BigInt(addedDeletes.length)); put('added-position-delete-files', BigInt(ap.length)); put('added-position-deletes', recs(ap));
  put('added-equality-delete-files', BigInt(ae.length)); put('added-equality-deletes', recs(ae));
  put('removed-delete-files', BigInt(rp.length + re.length)); put('removed-position-delete-files', BigInt(rp.length)); put('removed-position-deletes', recs(rp));
  put('removed-equality-delete-files', BigInt(re.length)); put('removed-equality-deletes', recs(re));
  summary['changed-partition-count'] = String(parts.size);
  summary['total-records'] = String(t('total-records') + recs(addedData) - recs(rd));
  summary['total-files-size'] = String(t('total-files-size') + size(change.added) - size(removedFiles));
  summary['total-data-files'] = String(t('total-data-files') + BigInt(addedData.length - rd.length));
  summary['total-delete-files'] = String(t('total-delete-files') + BigInt(addedDeletes.length - rp.length - re.length));
  summary['total-position-deletes'] = String(t('total-position-deletes') + recs(ap) - recs(rp));
  summary['total-equality-deletes'] = String(t('total-equality-deletes') + recs(ae) - recs(re));

  const listPath = `${location}/metadata/snap-${snapshotId}-${attempt}-${uuid()}.avro`;
  await view.storage.write(listPath, writeManifestList(out, snapshotId, parent ? BigInt(parent['snapshot-id']) : null, seq));
  written.push(listPath);

  const now = Math.max(Date.now(), base['last-updated-ms'] + 1);
  const snap: Snapshot = {
    'snapshot-id': Number(snapshotId),
    ...(parent ? { 'parent-snapshot-id': Number(parent['snapshot-id']) } : {}),
    'sequence-number': Number(seq),
    'timestamp-ms': now,
    'manifest-list': listPath,
    summary: summary as Snapshot['summary'],
    'schema-id': schema['schema-id'],
  };
  const meta: TableMetadata = {
    ...base,
    'last-sequence-number': Number(seq),
    'last-updated-ms': now,
    'current-snapshot-id': Number(snapshotId),
    snapshots: [...base.snapshots, snap],
    'snapshot-log': [...base['snapshot-log'], { 'snapshot-id': Number(snapshotId), 'timestamp-ms': now }],
    refs: { ...base.refs, main: { 'snapshot-id': Number(snapshotId), type: 'branch' } },
  };
  if (change.schema) applySchema(meta, change.schema);
  if (change.properties) meta.properties = { ...meta.properties, ...change.properties };
  return { meta, written };
}

/** Make `schema` the current schema (adding it when new). */
export function applySchema(meta: TableMetadata, schema: TableMetadata['schemas'][number]): void {
  if (!meta.schemas.some((s) => s['schema-id'] === schema['schema-id'])) meta.schemas = [...meta.schemas, schema];
  meta['current-schema-id'] = schema['schema-id'];
  meta['last-column-id'] = Math.max(meta['last-column-id'], ...schema.fields.map((f) => f.id));
}

/** Version number of a metadata file name (`v12.metadata.json` → 12, `00012-uuid.metadata.json` → 12). */
export function metadataVersion(loc: string): number {
  const name = loc.slice(loc.lastIndexOf('/') + 1);
  const m = /^v(\d+)\.metadata\.json$/.exec(name) ?? /^(\d+)-.*\.metadata\.json$/.exec(name);
  return m ? Number(m[1]) : 0;
}

/** Append the previous metadata file to `metadata-log` (capped) and serialise. */
export function withMetadataLog(meta: TableMetadata, previous: { file: string; ts: number } | null): TableMetadata {
  if (!previous) return meta;
  const log = [...meta['metadata-log'], { 'metadata-file': previous.file, 'timestamp-ms': previous.ts }];
  // write.metadata.previous-versions-max (Default: 100)
  const max = Number(meta.properties['write.metadata.previous-versions-max'] ?? 100);
  return { ...meta, 'metadata-log': log.slice(Math.max(0, log.length - max)) };
}

export function serialiseMetadata(meta: TableMetadata): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(meta, null, 2));
}
