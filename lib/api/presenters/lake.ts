import type { Lake, LakeTable } from '../../lake';

/** One table of the lake list: what the panel's table list shows without opening files. */
export interface LakeTableSummary {
  ident: string; namespace: string; name: string;
  location: string | null;
  currentSnapshotId: string | null;
  snapshotCount: number;
  lastUpdated: string | null;
  /** `total-records` of the current snapshot's summary, when the writer recorded it. */
  totalRecords: number | null;
  partitionBy: string[];
  /** Set when the table's metadata could not be read (the list still answers). */
  error: string | null;
}

const str = (v: number | bigint | null | undefined) => (v === null || v === undefined ? null : String(v));

function currentSnapshot(t: LakeTable) {
  const m = t.metadata();
  return m.snapshots.find((s) => String(s['snapshot-id']) === String(m['current-snapshot-id'])) ?? null;
}

function partitionNames(t: LakeTable): string[] {
  const m = t.metadata();
  const spec = m['partition-specs'].find((s) => s['spec-id'] === m['default-spec-id']);
  return spec ? spec.fields.map((f) => `${f.transform}(${f.name})`) : [];
}

/** Every table in the catalog, newest metadata read for each (metadata JSON only, no manifests). */
export async function listLakeTables(lake: Lake): Promise<LakeTableSummary[]> {
  const idents = await lake.listTables();
  return Promise.all(idents.map(async (ident): Promise<LakeTableSummary> => {
    const dot = ident.lastIndexOf('.');
    const base = { ident, namespace: ident.slice(0, dot), name: ident.slice(dot + 1) };
    try {
      const t = await lake.loadTable(ident);
      const snap = currentSnapshot(t);
      const total = snap?.summary['total-records'];
      return {
        ...base, location: t.location, currentSnapshotId: str(t.currentSnapshotId()), snapshotCount: t.snapshots().length,
        lastUpdated: new Date(t.metadata()['last-updated-ms']).toISOString(),
        totalRecords: total === undefined ? null : Number(total), partitionBy: partitionNames(t), error: null,
      };
    } catch (e) {
      return { ...base, location: null, currentSnapshotId: null, snapshotCount: 0, lastUpdated: null, totalRecords: null, partitionBy: [], error: (e as Error).message };
    }
  }));
}

/**
 * One table: schema, partition spec, properties, snapshots (newest first),
 * live files and rows per partition (data rows minus position deletes; equality
 * deletes are not resolved here, so a partition with them shows an upper bound).
 */
export async function describeLakeTable(lake: Lake, ident: string) {
  const t = await lake.loadTable(ident);
  const m = t.metadata();
  const schema = m.schemas.find((s) => s['schema-id'] === m['current-schema-id'])!;
  const spec = m['partition-specs'].find((s) => s['spec-id'] === m['default-spec-id']);
  const files = await t.files();
  const parts = new Map<string, { partition: Record<string, unknown>; rows: number; dataFiles: number; deleteFiles: number; bytes: number; equalityDeletes: boolean }>();
  for (const f of files) {
    const k = JSON.stringify(f.partition);
    const p = parts.get(k) ?? { partition: f.partition, rows: 0, dataFiles: 0, deleteFiles: 0, bytes: 0, equalityDeletes: false };
    if (f.content === 'data') { p.rows += f.recordCount; p.dataFiles++; } else { p.deleteFiles++; }
    if (f.content === 'position-deletes') p.rows -= f.recordCount;
    if (f.content === 'equality-deletes') p.equalityDeletes = true;
    p.bytes += f.fileSizeInBytes;
    parts.set(k, p);
  }
  const snap = currentSnapshot(t);
  const current = str(t.currentSnapshotId());
  return {
    ident: t.ident,
    location: t.location,
    metadataLocation: t.metadataLocation(),
    formatVersion: m['format-version'],
    tableUuid: m['table-uuid'],
    lastUpdated: new Date(m['last-updated-ms']).toISOString(),
    schema: schema.fields.map((f) => ({ id: f.id, name: f.name, type: typeof f.type === 'string' ? f.type : JSON.stringify(f.type), required: f.required })),
    identifierFields: (schema['identifier-field-ids'] ?? []).map((id) => schema.fields.find((f) => f.id === id)?.name ?? String(id)),
    partitionSpec: (spec?.fields ?? []).map((f) => ({ name: f.name, transform: f.transform, sourceId: f['source-id'], fieldId: f['field-id'] })),
    // The name mapping is long and machine-only.
    properties: Object.fromEntries(Object.entries(m.properties).filter(([k]) => k !== 'schema.name-mapping.default')),
    currentSnapshot: snap ? { id: String(snap['snapshot-id']), sequenceNumber: snap['sequence-number'], timestamp: new Date(snap['timestamp-ms']).toISOString(), summary: snap.summary } : null,
    snapshots: t.snapshots().map((s) => ({
      id: String(s['snapshot-id']), parentId: str(s['parent-snapshot-id']), sequenceNumber: s['sequence-number'],
      timestamp: new Date(s['timestamp-ms']).toISOString(), operation: s.summary.operation, summary: s.summary, current: String(s['snapshot-id']) === current,
    })).reverse(),
    fileCounts: {
      data: files.filter((f) => f.content === 'data').length,
      positionDeletes: files.filter((f) => f.content === 'position-deletes').length,
      equalityDeletes: files.filter((f) => f.content === 'equality-deletes').length,
      bytes: files.reduce((a, f) => a + f.fileSizeInBytes, 0),
    },
    rowsPerPartition: [...parts.values()].sort((a, b) => JSON.stringify(a.partition).localeCompare(JSON.stringify(b.partition))),
  };
}

export type LakeTableDetail = Awaited<ReturnType<typeof describeLakeTable>>;
