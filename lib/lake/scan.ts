/**
 * Scan planning and reading (spec: "Scan Planning"): manifest list →
 * manifests (pruned by partition summaries) → live entries with inherited
 * sequence numbers → data files (pruned by partition and column bounds) read
 * row group by row group, with position and equality deletes applied.
 */
import { unreadable } from './unreadable';
import { AppError } from '../errors';
import * as arrow from 'apache-arrow';
import { castData, isValidAt, makeBatch, nullData, takeBatch, valueAt } from './arrow-util';
import { compare, compareBytes, decodeBound, toComparable, type Comparable } from './bounds';
import {
  manifestMayContain, partitionFieldType, partitionKey, partitionValueFromAvro, readManifest, readManifestList,
  type ManifestEntry, type ManifestFile,
} from './manifest';
import { offloadPath, readOffloaded } from './offload-read';
import { readParquetBatches } from './parquet';
import { viewable, visitParquetColumns } from './parquet-views';
import { addPositions } from './position-deletes';
import { arrowSchemaOf, FIELD_ID, primitiveOf } from './schema';
import type { Storage } from './storage';
import type { ColumnRange, IcebergSchema, PartitionSpec, Snapshot, TableMetadata } from './types';
import type { Cache } from '../cache/lru';

export interface TableView {
  ident: string;
  storage: Storage;
  metadata: TableMetadata;
  /** Map a path recorded in metadata to a readable URI (identity for our own tables). */
  resolve(path: string): string;
  cache: Cache<string, ManifestEntry[]>;
}

export interface PlannedFile {
  entry: ManifestEntry;
  manifestPath: string;
  specId: number;
  partKey: string;
  dataSeq: bigint;
  fileSeq: bigint;
}

export function specById(m: TableMetadata, id: number): PartitionSpec {
  const s = m['partition-specs'].find((x) => x['spec-id'] === id);
  if (!s) throw new AppError('fatal', `lake: partition spec ${id} not found`);
  return s;
}

export function currentSchema(m: TableMetadata): IcebergSchema {
  return m.schemas.find((s) => s['schema-id'] === m['current-schema-id'])!;
}

export function snapshotById(m: TableMetadata, id: bigint | null | undefined): Snapshot | null {
  if (id === null || id === undefined || id === -1n) return null;
  const s = m.snapshots.find((x) => x['snapshot-id'] === id);
  if (!s) throw new AppError('not_found', `lake: snapshot ${id} not found`, { field: 'snapshotId' });
  return s;
}

export async function loadManifestList(view: TableView, snap: Snapshot): Promise<ManifestFile[]> {
  const uri = view.resolve(snap['manifest-list']);
  let bytes: Uint8Array;
  try { bytes = await view.storage.read(uri); } catch (e) {
    throw new AppError('internal', unreadable(view.ident, 'manifest list', snap['manifest-list'], e), { cause: e });
  }
  try { return readManifestList(bytes, snap['manifest-list']); } catch (e) {
    throw new AppError('internal', `lake: table ${view.ident}: ${(e as Error).message}`, { cause: e });
  }
}

export async function loadManifest(view: TableView, path: string): Promise<ManifestEntry[]> {
  const uri = view.resolve(path);
  const hit = view.cache.get(uri);
  if (hit) return hit;
  let bytes: Uint8Array;
  try { bytes = await view.storage.read(uri); } catch (e) {
    throw new AppError('internal', unreadable(view.ident, 'manifest', path, e), { cause: e });
  }
  let entries: ManifestEntry[];
  try { entries = readManifest(bytes, path).entries; } catch (e) {
    throw new AppError('internal', `lake: table ${view.ident}: ${(e as Error).message}`, { cause: e });
  }
  view.cache.set(uri, entries);
  return entries;
}

/** Normalised partition filter: partition field name → comparable value. */
export function partitionFilter(m: TableMetadata, spec: PartitionSpec, partition?: Record<string, unknown>): Record<string, Comparable | null> | undefined {
  if (!partition) return undefined;
  const schema = currentSchema(m);
  const out: Record<string, Comparable | null> = {};
  for (const [k, v] of Object.entries(partition)) {
    const f = spec.fields.find((x) => x.name === k) ?? spec.fields.find((x) => schema.fields.find((s) => s.id === x['source-id'])?.name === k);
    if (!f) throw new AppError('validation', `lake: ${k} is not a partition column`, { field: 'partition' });
    out[f.name] = toComparable(partitionFieldType(schema, f), v);
  }
  return out;
}

export function entryMatchesPartition(e: ManifestEntry, schema: IcebergSchema, spec: PartitionSpec, want?: Record<string, Comparable | null>): boolean {
  if (!want) return true;
  for (const [name, v] of Object.entries(want)) {
    const f = spec.fields.find((x) => x.name === name);
    if (!f) return false;
    const got = partitionValueFromAvro(partitionFieldType(schema, f), e.data_file.partition[name]);
    if (v === null || got === null) { if (v !== got) return false; continue; }
    if (compare(got, v) !== 0) return false;
  }
  return true;
}

/** Live data and delete files of a snapshot. */
export async function planFiles(view: TableView, snap: Snapshot | null, opts: { partition?: Record<string, unknown> } = {}): Promise<{ data: PlannedFile[]; deletes: PlannedFile[]; manifests: ManifestFile[] }> {
  const data: PlannedFile[] = [], deletes: PlannedFile[] = [];
  if (!snap) return { data, deletes, manifests: [] };
  const m = view.metadata;
  const schema = currentSchema(m);
  const manifests = await loadManifestList(view, snap);
  for (const mf of manifests) {
    const spec = specById(m, mf.partition_spec_id);
    const want = partitionFilter(m, spec, opts.partition);
    if (want && !manifestMayContain(mf, schema, spec, want)) continue;
    const entries = await loadManifest(view, mf.manifest_path);
    for (const e of entries) {
      if (e.status === 2) continue;
      if (!entryMatchesPartition(e, schema, spec, want)) continue;
      // Sequence-number inheritance: null means "the manifest's sequence number" (only valid for ADDED).
      const dataSeq = e.sequence_number ?? mf.sequence_number;
      const fileSeq = e.file_sequence_number ?? mf.sequence_number;
      const pf: PlannedFile = { entry: e, manifestPath: mf.manifest_path, specId: mf.partition_spec_id, partKey: `${mf.partition_spec_id}/${partitionKey(e.data_file.partition, spec)}`, dataSeq, fileSeq };
      if (e.data_file.content === 0) data.push(pf); else deletes.push(pf);
    }
  }
  return { data, deletes, manifests };
}

/** Can a file hold rows matching every range (by its column bounds)? */
export function fileMayMatch(e: ManifestEntry, schema: IcebergSchema, filters: ColumnRange[] | undefined): boolean {
  if (!filters?.length) return true;
  const lows = new Map((e.data_file.lower_bounds ?? []).map((x) => [x.key, x.value]));
  const highs = new Map((e.data_file.upper_bounds ?? []).map((x) => [x.key, x.value]));
  for (const r of filters) {
    const f = schema.fields.find((x) => x.name === r.column);
    if (!f) throw new AppError('validation', `lake: filter column ${r.column} is not in the table`, { field: 'filter' });
    const ft = primitiveOf(f, 'a filter');
    const lb = lows.get(f.id), ub = highs.get(f.id);
    const lo = lb ? decodeBound(ft, lb) : null, hi = ub ? decodeBound(ft, ub) : null;
    if (lo === null && hi === null) continue;
    if (r.gte !== undefined && hi !== null && compare(hi, toComparable(ft, r.gte)!) < 0) return false;
    if (r.lte !== undefined && lo !== null && compare(lo, toComparable(ft, r.lte)!) > 0) return false;
    if (r.in) {
      const any = r.in.some((v) => {
        const c = toComparable(ft, v);
        if (c === null) return true;
        return (lo === null || compare(c, lo) >= 0) && (hi === null || compare(c, hi) <= 0);
      });
      if (!any) return false;
    }
  }
  return true;
}

/** Conform a batch read from a data file to `schema`, matching columns by field id (or by name when the file has no ids). */
export function projectFileBatch(batch: arrow.RecordBatch, schema: IcebergSchema, target: arrow.Schema, what: string): arrow.RecordBatch {
  const byId = new Map<number, number>(); const byName = new Map<string, number>();
  batch.schema.fields.forEach((f, i) => {
    const id = f.metadata.get(FIELD_ID);
    if (id !== undefined) byId.set(Number(id), i);
    byName.set(f.name, i);
  });
  const children = schema.fields.map((f, c) => {
    const i = byId.size > 0 ? byId.get(f.id) : byName.get(f.name);
    const t = target.fields[c].type;
    if (i === undefined) return nullData(t, batch.numRows);
    try { return castData(batch.data.children[i], t, f.name); } catch (e) {
      throw new AppError('fatal', `lake: ${what}: column ${f.name}: ${(e as Error).message}`, { cause: e });
    }
  });
  return makeBatch(target, children, batch.numRows);
}

export interface DeleteIndex {
  positions(pf: PlannedFile): Promise<Set<number> | null>;
  equality(pf: PlannedFile): Promise<{ ids: number[]; keys: Set<string> }[]>;
}

/** Lazily loads the delete files that apply to each data file. */
export function deleteIndex(view: TableView, deletes: PlannedFile[]): DeleteIndex {
  const posByPart = new Map<string, PlannedFile[]>();
  const eq: PlannedFile[] = [];
  for (const d of deletes) {
    if (d.entry.data_file.content === 1) { let l = posByPart.get(d.partKey); if (!l) posByPart.set(d.partKey, (l = [])); l.push(d); }
    else eq.push(d);
  }
  const loadedPos = new Map<string, Promise<Map<string, number[]>>>();
  const loadPos = (d: PlannedFile) => {
    const p = d.entry.data_file.file_path;
    let r = loadedPos.get(p);
    if (!r) {
      r = (async () => {
        const out = new Map<string, number[]>();
        const bytes = await openFile(view, p);
        for await (const b of readParquetBatches(bytes, p)) addPositions(b, out);
        return out;
      })();
      loadedPos.set(p, r);
    }
    return r;
  };
  const loadedEq = new Map<string, Promise<{ ids: number[]; keys: Set<string> }>>();
  const schema = currentSchema(view.metadata);
  return {
    async positions(pf) {
      const cands = posByPart.get(pf.partKey) ?? [];
      let set: Set<number> | null = null;
      const path = pf.entry.data_file.file_path;
      for (const d of cands) {
        // A position delete applies to data files whose data sequence number is <= its own.
        if (d.dataSeq < pf.dataSeq) continue;
        if (!boundsMayHoldPath(d, path)) continue;
        const m = await loadPos(d);
        const l = m.get(path);
        if (l) { set ??= new Set(); for (const x of l) set.add(x); }
      }
      return set;
    },
    async equality(pf) {
      const out: { ids: number[]; keys: Set<string> }[] = [];
      for (const d of eq) {
        // An equality delete applies to strictly older data in the same partition (or globally when unpartitioned).
        if (d.dataSeq <= pf.dataSeq) continue;
        const spec = specById(view.metadata, d.specId);
        if (spec.fields.length > 0 && d.partKey !== pf.partKey) continue;
        const p = d.entry.data_file.file_path;
        let r = loadedEq.get(p);
        if (!r) {
          r = (async () => {
            const ids = (d.entry.data_file.equality_ids ?? []).map(Number);
            const fields = ids.map((id) => schema.fields.find((f) => f.id === id)!);
            const sub: IcebergSchema = { type: 'struct', 'schema-id': 0, fields };
            const target = arrowSchemaOf(sub);
            const keys = new Set<string>();
            const bytes = await openFile(view, p);
            for await (const raw of readParquetBatches(bytes, p)) {
              const b = projectFileBatch(raw, sub, target, p);
              const cols = b.data.children;
              for (let i = 0; i < b.numRows; i++) keys.add(rowKey(cols, i));
            }
            return { ids, keys };
          })();
          loadedEq.set(p, r);
        }
        out.push(await r);
      }
      return out;
    },
  };
}

function boundsMayHoldPath(d: PlannedFile, path: string): boolean {
  const id = 2147483546;
  const lo = d.entry.data_file.lower_bounds?.find((x) => x.key === id)?.value;
  const hi = d.entry.data_file.upper_bounds?.find((x) => x.key === id)?.value;
  const p = new TextEncoder().encode(path);
  if (lo && compareBytes(p, lo) < 0) return false;
  // upper bounds may be truncated+incremented, so compare only the prefix length
  if (hi && compareBytes(p.subarray(0, hi.length), hi) > 0) return false;
  return true;
}

export function rowKey(cols: arrow.Data[], i: number): string {
  let s = '';
  for (let c = 0; c < cols.length; c++) {
    const v = valueAt(cols[c], i);
    s += (c ? '\u0001' : '') + (v === null ? '\u0000' : typeof v === 'bigint' ? `${v}` : String(v));
  }
  return s;
}

/** A data or delete file as a lazily read Blob: a projected read fetches only its columns' chunks. */
export async function openFile(view: TableView, path: string): Promise<Blob> {
  try { return await view.storage.blob(view.resolve(path)); } catch (e) {
    throw new AppError('internal', unreadable(view.ident, 'data file', path, e), { cause: e });
  }
}

/**
 * Batches of one data file conformed to `schema`, each with the file position of its first row.
 * `offload`: a projected read (`fieldIds`) of a local file may be decoded by an encoder worker
 * (offload-read.ts) — for a merge's candidate files, read while its thread probes others.
 */
export async function* readDataFile(view: TableView, pf: PlannedFile, schema: IcebergSchema, target: arrow.Schema, fieldIds?: Set<number>, offload = false): AsyncGenerator<{ batch: arrow.RecordBatch; rowBase: number }> {
  const path = pf.entry.data_file.file_path;
  const local = offload && fieldIds ? offloadPath(view.storage, view.resolve(path), Number(pf.entry.data_file.record_count)) : null;
  const raws = local ? readOffloaded(view.ident, path, local, fieldIds!) : readParquetBatches(await openFile(view, path), path, { fieldIds });
  let rowBase = 0;
  for await (const raw of raws) {
    const batch = projectFileBatch(raw, schema, target, path);
    yield { batch, rowBase };
    rowBase += raw.numRows;
  }
}

/**
 * readDataFile's batches (projected alike) handed to a synchronous visitor over views of the
 * reader's heap, decoded on this thread with no copy (parquet-views.ts: the visitor keeps nothing
 * of a batch); false, having visited nothing, when one of the columns is not of a fixed-width type.
 */
export async function visitDataFile(view: TableView, pf: PlannedFile, schema: IcebergSchema, target: arrow.Schema, fieldIds: Set<number>, visit: (batch: arrow.RecordBatch, rowBase: number) => void): Promise<boolean> {
  if (!target.fields.every((f) => viewable(f.type))) return false;
  const path = pf.entry.data_file.file_path;
  let rowBase = 0;
  return visitParquetColumns(await openFile(view, path), path, fieldIds, (raw) => {
    visit(projectFileBatch(raw, schema, target, path), rowBase);
    rowBase += raw.numRows;
  });
}

/** Row filter on exact values (after file pruning). */
export function rowFilter(schema: IcebergSchema, filters: ColumnRange[] | undefined): ((b: arrow.RecordBatch, i: number) => boolean) | null {
  if (!filters?.length) return null;
  const preds = filters.map((r) => {
    const c = schema.fields.findIndex((f) => f.name === r.column);
    if (c < 0) throw new AppError('validation', `lake: filter column ${r.column} is not in the table`, { field: 'filter' });
    const type = primitiveOf(schema.fields[c], 'a filter');
    const gte = r.gte === undefined ? null : toComparable(type, r.gte);
    const lte = r.lte === undefined ? null : toComparable(type, r.lte);
    const inSet = r.in?.map((v) => toComparable(type, v));
    return (b: arrow.RecordBatch, i: number) => {
      const d = b.data.children[c];
      if (!isValidAt(d, i)) return false;
      const v = toComparable(type === 'string' ? 'string' : type, valueAt(d, i))!;
      if (gte !== null && compare(v, gte) < 0) return false;
      if (lte !== null && compare(v, lte) > 0) return false;
      if (inSet && !inSet.some((x) => x !== null && compare(v, x) === 0)) return false;
      return true;
    };
  });
  return (b, i) => preds.every((p) => p(b, i));
}

/** Keep rows not deleted (positions, equality keys) and passing the filter. */
export function applyDeletes(batch: arrow.RecordBatch, rowBase: number, schema: IcebergSchema, pos: Set<number> | null, eq: { ids: number[]; keys: Set<string> }[], filter: ((b: arrow.RecordBatch, i: number) => boolean) | null): arrow.RecordBatch {
  if (!pos && eq.length === 0 && !filter) return batch;
  const keep: number[] = [];
  const eqCols = eq.map((e) => e.ids.map((id) => batch.data.children[schema.fields.findIndex((f) => f.id === id)]));
  for (let i = 0; i < batch.numRows; i++) {
    if (pos && pos.has(rowBase + i)) continue;
    let dead = false;
    for (let k = 0; k < eq.length && !dead; k++) if (eq[k].keys.has(rowKey(eqCols[k], i))) dead = true;
    if (dead) continue;
    if (filter && !filter(batch, i)) continue;
    keep.push(i);
  }
  if (keep.length === batch.numRows) return batch;
  return takeBatch(batch, keep);
}
