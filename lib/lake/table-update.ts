/**
 * What a commit declares (Iceberg REST spec: `TableRequirement`, `TableUpdate`):
 * the requirements the current metadata must meet (optimistic-concurrency
 * checks) and the updates applied to it. Pure functions: the catalog checks and
 * applies them to whatever metadata is current when it commits.
 */
import type { IcebergSchema, Snapshot, TableMetadata } from './types';
import { maxFieldId } from './schema';
import { AppError } from '../errors';

export type TableRequirement =
  | { type: 'assert-table-uuid'; uuid: string }
  /** The ref points at this snapshot (null: the ref does not exist yet, i.e. no snapshot). */
  | { type: 'assert-ref-snapshot-id'; ref: string; 'snapshot-id': bigint | null }
  | { type: 'assert-current-schema-id'; 'current-schema-id': number };

export type TableUpdate =
  | { action: 'add-snapshot'; snapshot: Snapshot }
  | { action: 'set-snapshot-ref'; 'ref-name': string; type: 'branch' | 'tag'; 'snapshot-id': bigint }
  | { action: 'remove-snapshots'; 'snapshot-ids': bigint[] }
  | { action: 'add-schema'; schema: IcebergSchema }
  | { action: 'set-current-schema'; 'schema-id': number }
  | { action: 'set-properties'; updates: Record<string, string> };

/**
 * A requirement is not met (someone committed in between), or the
 * compare-and-swap lost: the operation may rebuild on the new metadata and retry.
 */
export class CommitFailed extends AppError {
  constructor(message: string) { super('conflict', message); this.name = 'CommitFailed'; }
}

/** The snapshot a ref points at (for `main`, the current snapshot of tables written without refs). */
export function refSnapshotId(m: TableMetadata, ref: string): string | null {
  const r = m.refs?.[ref]?.['snapshot-id'] ?? (ref === 'main' ? m['current-snapshot-id'] : null);
  return r === null || r === undefined || r === -1n ? null : String(r);
}

/** `base`'s table uuid and main snapshot, as requirements: the commit was built on exactly this table state. */
export function baseRequirements(base: TableMetadata): TableRequirement[] {
  const cur = refSnapshotId(base, 'main');
  return [
    { type: 'assert-table-uuid', uuid: base['table-uuid'] },
    { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': cur === null ? null : BigInt(cur) },
  ];
}

/** Requirements every snapshot-producing commit built on `base` declares. */
export function snapshotRequirements(base: TableMetadata): TableRequirement[] {
  return [...baseRequirements(base), { type: 'assert-current-schema-id', 'current-schema-id': base['current-schema-id'] }];
}

/** Throws `CommitFailed` naming the first requirement `current` does not meet. */
export function checkRequirements(current: TableMetadata, requirements: TableRequirement[], ident: string): void {
  for (const r of requirements) {
    switch (r.type) {
      case 'assert-table-uuid':
        if (current['table-uuid'] !== r.uuid) throw new CommitFailed(`lake: ${ident}: table uuid is ${current['table-uuid']}, expected ${r.uuid}`);
        break;
      case 'assert-ref-snapshot-id': {
        const want = r['snapshot-id'] === null ? null : String(r['snapshot-id']);
        const got = refSnapshotId(current, r.ref);
        if (got !== want) throw new CommitFailed(`lake: ${ident}: ref ${r.ref} is at snapshot ${got}, expected ${want}`);
        break;
      }
      case 'assert-current-schema-id':
        if (current['current-schema-id'] !== r['current-schema-id']) throw new CommitFailed(`lake: ${ident}: current schema is ${current['current-schema-id']}, expected ${r['current-schema-id']}`);
        break;
    }
  }
}

/** The metadata after `updates` (a new object; `base` is not changed). */
export function applyUpdates(base: TableMetadata, updates: TableUpdate[]): TableMetadata {
  const m: TableMetadata = { ...base, 'last-updated-ms': Math.max(Date.now(), base['last-updated-ms'] + 1) };
  for (const u of updates) {
    switch (u.action) {
      case 'add-snapshot':
        m.snapshots = [...m.snapshots, u.snapshot];
        m['last-sequence-number'] = Math.max(m['last-sequence-number'], u.snapshot['sequence-number']);
        m['last-updated-ms'] = Math.max(u.snapshot['timestamp-ms'], base['last-updated-ms'] + 1);
        break;
      case 'set-snapshot-ref': {
        m.refs = { ...m.refs, [u['ref-name']]: { 'snapshot-id': u['snapshot-id'], type: u.type } };
        if (u['ref-name'] === 'main') {
          const snap = m.snapshots.find((s) => String(s['snapshot-id']) === String(u['snapshot-id']));
          m['current-snapshot-id'] = u['snapshot-id'];
          m['snapshot-log'] = [...m['snapshot-log'], { 'snapshot-id': u['snapshot-id'], 'timestamp-ms': snap?.['timestamp-ms'] ?? m['last-updated-ms'] }];
        }
        break;
      }
      case 'remove-snapshots': {
        const gone = new Set(u['snapshot-ids'].map(String));
        m.snapshots = m.snapshots.filter((s) => !gone.has(String(s['snapshot-id'])));
        m['snapshot-log'] = m['snapshot-log'].filter((l) => !gone.has(String(l['snapshot-id'])));
        break;
      }
      case 'add-schema':
        if (!m.schemas.some((s) => s['schema-id'] === u.schema['schema-id'])) m.schemas = [...m.schemas, u.schema];
        m['last-column-id'] = Math.max(m['last-column-id'], maxFieldId(u.schema));
        break;
      case 'set-current-schema':
        m['current-schema-id'] = u['schema-id'];
        break;
      case 'set-properties':
        m.properties = { ...m.properties, ...u.updates };
        break;
    }
  }
  return m;
}

/** The updates that make `schema` current (adding it when new). */
export function schemaUpdates(schema: IcebergSchema): TableUpdate[] {
  return [{ action: 'add-schema', schema }, { action: 'set-current-schema', 'schema-id': schema['schema-id'] }];
}
