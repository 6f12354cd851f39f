import * as arrow from 'apache-arrow';
import type pg from 'pg';
import { BRANCH_ID } from '../../config/lake-columns';
import { AppError } from '../../errors';
import type { Lake, LakeTable } from '../../lake';
import { snapshotRows } from './snapshot-rows';
import { cellValue, typeString } from '../../lake';

/** One table of the lake list: what the panel's table list shows without opening files. */
export interface LakeTableSummary {
  ident: string; namespace: string; name: string;
  location: string | null;
  currentSnapshotId: string | null;
  snapshotCount: number;
  lastUpdated: string | null;
  /** `total-records` of the current snapshot's summary (rows of live data files), when the writer recorded it. */
  totalRecords: number | null;
  /** Rows a reader sees: total minus rows marked deleted by delete files (see snapshotRows). */
  liveRecords: number | null;
  /** Rows marked deleted by live delete files (awaiting compaction). */
  deletedRecords: number;
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
      const rows = snapshotRows(snap?.summary);
      return {
        ...base, location: t.location, currentSnapshotId: str(t.currentSnapshotId()), snapshotCount: t.snapshots().length,
        lastUpdated: new Date(t.metadata()['last-updated-ms']).toISOString(),
        totalRecords: rows.total, liveRecords: rows.live, deletedRecords: rows.markedDeleted, partitionBy: partitionNames(t), error: null,
      };
    } catch (e) {
      return { ...base, location: null, currentSnapshotId: null, snapshotCount: 0, lastUpdated: null, totalRecords: null, liveRecords: null, deletedRecords: 0, partitionBy: [], error: (e as Error).message };
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
    schema: schema.fields.map((f) => ({ id: f.id, name: f.name, type: typeString(f.type), required: f.required })),
    identifierFields: (schema['identifier-field-ids'] ?? []).map((id) => schema.fields.find((f) => f.id === id)?.name ?? String(id)),
    partitionSpec: (spec?.fields ?? []).map((f) => ({ name: f.name, transform: f.transform, sourceId: f['source-id'], fieldId: f['field-id'] })),
    // The name mapping is long and machine-only.
    properties: Object.fromEntries(Object.entries(m.properties).filter(([k]) => k !== 'schema.name-mapping.default')),
    currentSnapshot: snap ? { id: String(snap['snapshot-id']), sequenceNumber: snap['sequence-number'], timestamp: new Date(snap['timestamp-ms']).toISOString(), summary: snap.summary } : null,
    snapshots: t.snapshots().map((s) => ({
      id: String(s['snapshot-id']), parentId: str(s['parent-snapshot-id']), sequenceNumber: s['sequence-number'],
      timestamp: new Date(s['timestamp-ms']).toISOString(), operation: s.summary.operation, summary: s.summary, current: String(s['snapshot-id']) === current,
    })).reverse(),
    timeline: snapshotTimeline(t.snapshots().map((s) => ({ id: String(s['snapshot-id']), timestamp: new Date(s['timestamp-ms']).toISOString(), operation: s.summary.operation, summary: s.summary }))),
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

/** One point of the snapshot timeline chart: rows added and deleted by each snapshot, oldest first. */
export interface SnapshotPoint { id: string; timestamp: string; operation: string; added: number; deleted: number; total: number | null }

/**
 * Snapshot summaries as chart points, oldest first. Deleted rows are those of
 * removed data files (`deleted-records`) plus rows a merge deleted through
 * delete files (`added-position-deletes`, `added-equality-deletes`), as the
 * Iceberg spec's summary fields count them.
 */
export function snapshotTimeline(snapshots: { id: string; timestamp: string; operation?: string; summary: Record<string, string> }[]): SnapshotPoint[] {
  return [...snapshots].sort((a, b) => a.timestamp.localeCompare(b.timestamp)).map((s) => {
    const r = snapshotRows(s.summary);
    return { id: s.id, timestamp: s.timestamp, operation: s.operation ?? s.summary.operation ?? '', added: r.added, deleted: r.deleted, total: r.total };
  });
}

/**
 * One Arrow value as JSON: 64-bit integers and decimals as exact strings, dates and times ISO, bytes hex.
 * Like the lake CLI's plainValue (lib/lake/format.ts, not public), except that every 64-bit
 * integer is a string: the API promises one type per column, not a number that turns into a string past 2^53.
 */
function jsonValue(type: arrow.DataType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type.typeId) {
    case arrow.Type.Decimal: {
      const scale = (type as arrow.Decimal).scale;
      const u = BigInt(String(v)); const neg = u < 0n;
      const digits = (neg ? -u : u).toString().padStart(scale + 1, '0');
      return (neg ? '-' : '') + (scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits);
    }
    case arrow.Type.Timestamp: {
      const iso = new Date(Number(v)).toISOString();
      return (type as arrow.Timestamp).timezone ? iso : iso.replace('Z', '');
    }
    case arrow.Type.Date: return new Date(Number(v)).toISOString().slice(0, 10);
    case arrow.Type.Binary: case arrow.Type.FixedSizeBinary: return Buffer.from(v as Uint8Array).toString('hex');
    // a list column (a PostgreSQL array): a JSON array of its elements, each by the same rules
    case arrow.Type.List: return [...(v as Iterable<unknown>)].map((x) => jsonValue((type as arrow.List).children[0].type, x));
    default: return typeof v === 'bigint' ? String(v) : v;
  }
}

/** The first rows of a table (at most 1000), optionally of one branch (BRANCH_ID), JSON-safe. */
export async function previewLakeRows(lake: Lake, ident: string, o: { branch?: string; limit?: number } = {}) {
  const t = await lake.loadTable(ident);
  const m = t.metadata();
  const schema = m.schemas.find((s) => s['schema-id'] === m['current-schema-id'])!;
  const limit = Math.min(Math.max(o.limit ?? 100, 1), 1000);
  const branchField = schema.fields.find((f) => f.name === BRANCH_ID);
  if (o.branch !== undefined && !branchField) throw new AppError('validation', `branch: lake: ${ident} has no ${BRANCH_ID} column to filter on`, { field: 'branch' });
  // BRANCH_ID is a string in ETL tables; a table imported with a numeric one is filtered by number.
  const branchValue = o.branch === undefined ? undefined : (branchField!.type === 'int' || branchField!.type === 'long') ? Number(o.branch) : o.branch;
  if (branchValue !== undefined && typeof branchValue === 'number' && !Number.isInteger(branchValue)) {
    throw new AppError('validation', `branch: ${BRANCH_ID} of ${ident} is a number, got ${JSON.stringify(o.branch)}`, { field: 'branch' });
  }
  const rows: Record<string, unknown>[] = [];
  const columns = schema.fields.map((f) => ({ name: f.name, type: typeString(f.type) }));
  if (t.currentSnapshotId() !== null) {
    for await (const b of t.scan({ limit, filter: branchValue === undefined ? undefined : [{ column: BRANCH_ID, in: [branchValue] }] })) {
      const fields = b.schema.fields;
      for (let i = 0; i < b.numRows; i++) {
        const row: Record<string, unknown> = {};
        fields.forEach((f, c) => { row[f.name] = cellValue(b, c, i, jsonValue); });
        rows.push(row);
      }
    }
  }
  return { ident: t.ident, branch: o.branch ?? null, limit, columns, rows, truncated: rows.length >= limit };
}

/** Freshness of one table × branch: its last load, watermark and age. */
export interface FreshnessCell {
  table: string; branch: string; status: string | null;
  lastRunFinishedAt: string | null; lastSuccessAt: string | null;
  /** The authoritative watermark (control_state), else etl_control's. */
  watermark: string | null; watermarkDate: string | null;
  /** Seconds since the last successful load (null: never loaded). */
  ageSeconds: number | null;
  rowCount: number | null; error: string | null;
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : String(v));

/** Every table × branch ETL knows (etl_control joined with control_state), oldest load first within a table; a table outside the default namespace `etl` shows as `namespace.table`. */
export async function lakeFreshness(pool: pg.Pool): Promise<{ cells: FreshnessCell[]; tables: string[]; branches: string[] }> {
  const r = await pool.query(`
    SELECT CASE coalesce(c.namespace, s.namespace) WHEN 'etl' THEN '' ELSE coalesce(c.namespace, s.namespace) || '.' END || coalesce(c.table_name, s.table_name) AS table_name, coalesce(c.branch_id, s.branch_id) AS branch_id, c.status,
           c.last_run_finished_at, coalesce(c.last_success_at, s.updated_at) AS last_success_at,
           coalesce(s.last_cdc_value, c.last_cdc_value) AS watermark, coalesce(s.last_date_value, c.last_date_value) AS watermark_date,
           extract(epoch FROM now() - coalesce(c.last_success_at, s.updated_at))::float8 AS age, c.row_count, c.error_details
      FROM etl_meta.etl_control c FULL JOIN etl_meta.control_state s ON s.namespace = c.namespace AND s.table_name = c.table_name AND s.branch_id = c.branch_id
     ORDER BY 1, 2`);
  const cells: FreshnessCell[] = r.rows.map((x) => ({
    table: x.table_name, branch: x.branch_id, status: x.status ?? null,
    lastRunFinishedAt: iso(x.last_run_finished_at), lastSuccessAt: iso(x.last_success_at),
    watermark: x.watermark ?? null, watermarkDate: x.watermark_date ?? null,
    ageSeconds: x.age === null ? null : Math.max(0, Math.round(Number(x.age))),
    rowCount: x.row_count === null || x.row_count === undefined ? null : Number(x.row_count), error: x.error_details ?? null,
  }));
  return { cells, tables: [...new Set(cells.map((c) => c.table))], branches: [...new Set(cells.map((c) => c.branch))].sort() };
}

/**
 * One recorded drift as a sentence. ETL records `{ column, kind, types?, resolved?, missingIn? }`
 * (lib/etl's schema union); anything else is shown as its JSON.
 */
export function driftText(d: unknown): string {
  if (typeof d === 'string') return d;
  const o = d as { column?: unknown; kind?: unknown; types?: Record<string, string>; resolved?: unknown; missingIn?: unknown[] } | null;
  if (!o || typeof o !== 'object' || typeof o.column !== 'string' || typeof o.kind !== 'string') return JSON.stringify(d);
  const kind = ({ widened: 'widened', to_string: 'stored as string', missing: 'missing in some branches' } as Record<string, string>)[o.kind] ?? o.kind;
  const types = o.types && typeof o.types === 'object' ? ` (${Object.entries(o.types).map(([b, t]) => `${b}: ${t}`).join(', ')})` : '';
  const to = o.resolved ? ` → ${String(o.resolved)}` : '';
  const missing = Array.isArray(o.missingIn) && o.missingIn.length ? `; missing in ${o.missingIn.join(', ')}` : '';
  return `${o.column}: ${kind}${types}${to}${missing}`;
}

/** Schema drift recorded by ETL runs (etl_run_log.schema_discrepancy), newest first. */
export async function schemaDriftHistory(pool: pg.Pool, o: { table?: string; limit?: number } = {}) {
  const r = await pool.query(`
    SELECT id, pipeline_run_id, table_name, branch_id, mode, status, started_at, schema_discrepancy
      FROM etl_meta.etl_run_log
     WHERE schema_discrepancy IS NOT NULL AND schema_discrepancy <> 'null'::jsonb AND schema_discrepancy <> '[]'::jsonb
       AND ($1::text IS NULL OR table_name = $1)
     ORDER BY started_at DESC, id DESC LIMIT $2`, [o.table ?? null, Math.min(o.limit ?? 200, 1000)]);
  return r.rows.map((x) => ({
    id: Number(x.id), runId: x.pipeline_run_id as string, table: x.table_name as string, branch: x.branch_id as string,
    mode: x.mode as string, status: x.status as string, at: iso(x.started_at)!,
    changes: (Array.isArray(x.schema_discrepancy) ? x.schema_discrepancy : [x.schema_discrepancy]).map(driftText),
  }));
}
