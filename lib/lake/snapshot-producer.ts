/**
 * The snapshot producer shared by every data-changing operation (pyiceberg's
 * `_SnapshotProducer`, iceberg-rust's `SnapshotProducer`): from a `Change`
 * (files added, files removed, partitions touched) it writes the manifests and
 * manifest list of a new snapshot on top of the base, declares the commit
 * (`add-snapshot` + `set-snapshot-ref main`, requiring the base's uuid, main
 * snapshot and schema), and after a lost race checks that the change still
 * applies: appends always; others only when the concurrent commits touched
 * none of their partitions.
 */
import crypto from 'node:crypto';
import { commitWithRetry, CommitConflict } from './commit';
import {
  partitionKey, summarisePartitions, writeManifest, writeManifestList,
  type DataFileRec, type ManifestEntry, type ManifestFile,
} from './manifest';
import { currentSchema, loadManifest, loadManifestList, snapshotById, specById, type PlannedFile, type TableView } from './scan';
import type { TableHandle } from './table-context';
import { schemaUpdates, snapshotRequirements, type TableUpdate } from './table-update';
import type { CommitResult, Snapshot, TableMetadata } from './types';

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
  /** Extra snapshot summary properties; the spec's own names are computed and win. */
  summary?: Record<string, string>;
}

function newSnapshotId(): bigint {
  // Positive and below 2^53 so the id survives JSON readers that use doubles (Tributary reads any
  // 64-bit id exactly: metadata-json.ts).
  return BigInt(crypto.randomInt(1, 2 ** 47)) * 64n + BigInt(crypto.randomInt(0, 64));
}

const uuid = () => crypto.randomUUID();

/** Commit a snapshot-producing change (retrying on top of concurrent commits when it allows). */
export async function commitChange(t: TableHandle, change: Change): Promise<CommitResult> {
  const snapshotId = newSnapshotId();
  const { attempts } = await commitWithRetry(t, async (base, attempt) => {
    const { snapshot, written } = await buildSnapshot(t.view(base), base, change, snapshotId, attempt);
    const updates: TableUpdate[] = [
      { action: 'add-snapshot', snapshot },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': snapshot['snapshot-id'] },
      ...(change.schema ? schemaUpdates(change.schema) : []),
      ...(change.properties ? [{ action: 'set-properties' as const, updates: change.properties }] : []),
    ];
    return { requirements: snapshotRequirements(base), updates, written };
  }, (original) => checkRebase(t.view(), original, change));
  const meta = t.metadata();
  const s = snapshotById(meta, snapshotId)!;
  const data = change.added.filter((d) => d.content === 0);
  return {
    snapshotId, sequenceNumber: s['sequence-number'], metadataLocation: t.metadataLocation(),
    addedDataFiles: data.length,
    addedDeleteFiles: change.added.length - data.length,
    removedFiles: change.removed.length,
    addedRecords: Number(data.reduce((a, d) => a + d.record_count, 0n)),
    attempts,
  };
}

/** Partitions changed by snapshots committed after `base` (for conflict checks). */
async function changedSince(view: TableView, base: TableMetadata): Promise<{ parts: Set<string>; count: number }> {
  const baseSeq = base['last-sequence-number'];
  const parts = new Set<string>();
  let count = 0;
  for (const s of view.metadata.snapshots) {
    if (s['sequence-number'] <= baseSeq) continue;
    count++;
    const id = s['snapshot-id'];
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
 * Write the manifests and manifest list of a new snapshot on top of `base`.
 * Returns the snapshot and every file written (deleted if the commit fails).
 */
export async function buildSnapshot(view: TableView, base: TableMetadata, change: Change, snapshotId: bigint, attempt: number): Promise<{ snapshot: Snapshot; written: string[] }> {
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
  const summary: Record<string, string> = { ...change.summary, operation: change.operation };
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
  await view.storage.write(listPath, writeManifestList(out, snapshotId, parent ? parent['snapshot-id'] : null, seq));
  written.push(listPath);

  const snapshot: Snapshot = {
    'snapshot-id': snapshotId,
    ...(parent ? { 'parent-snapshot-id': parent['snapshot-id'] } : {}),
    'sequence-number': Number(seq),
    'timestamp-ms': Math.max(Date.now(), base['last-updated-ms'] + 1),
    'manifest-list': listPath,
    summary: summary as Snapshot['summary'],
    'schema-id': schema['schema-id'],
  };
  return { snapshot, written };
}
