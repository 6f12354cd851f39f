import { describe, expect, it } from 'vitest';
import { applyUpdates, checkRequirements, CommitFailed, snapshotRequirements } from './table-update';
import type { Snapshot, TableMetadata } from './types';

const snap = (id: bigint, seq: number, ts: number, parent?: bigint): Snapshot => ({
  'snapshot-id': id, ...(parent ? { 'parent-snapshot-id': parent } : {}), 'sequence-number': seq, 'timestamp-ms': ts,
  'manifest-list': `file:///t/metadata/snap-${id}.avro`, summary: { operation: 'append' },
});

const base = (): TableMetadata => ({
  'format-version': 2, 'table-uuid': 'u-1', location: 'file:///t', 'last-sequence-number': 1, 'last-updated-ms': 1000,
  'last-column-id': 1, 'current-schema-id': 0, schemas: [{ type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'a', required: false, type: 'int' }] }],
  'default-spec-id': 0, 'partition-specs': [{ 'spec-id': 0, fields: [] }], 'last-partition-id': 999, 'default-sort-order-id': 0,
  'sort-orders': [{ 'order-id': 0, fields: [] }], properties: { p: '1' }, 'current-snapshot-id': 10n,
  snapshots: [snap(10n, 1, 1000)], 'snapshot-log': [{ 'snapshot-id': 10n, 'timestamp-ms': 1000 }], 'metadata-log': [],
  refs: { main: { 'snapshot-id': 10n, type: 'branch' } },
});

describe('requirements', () => {
  it('pass on the metadata they were taken from and fail, naming what moved, on any other', () => {
    const m = base();
    const req = snapshotRequirements(m);
    expect(() => checkRequirements(m, req, 'n.t')).not.toThrow();
    const moved = applyUpdates(m, [{ action: 'add-snapshot', snapshot: snap(11n, 2, 2000, 10n) }, { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 11n }]);
    expect(() => checkRequirements(moved, req, 'n.t')).toThrow(CommitFailed);
    expect(() => checkRequirements(moved, req, 'n.t')).toThrow(/ref main is at snapshot 11, expected 10/);
    expect(() => checkRequirements({ ...m, 'table-uuid': 'u-2' }, req, 'n.t')).toThrow(/table uuid/);
    expect(() => checkRequirements({ ...m, 'current-schema-id': 1 }, req, 'n.t')).toThrow(/current schema is 1, expected 0/);
  });

  it('an empty table (no snapshot, no refs) asserts main does not exist yet', () => {
    const m = { ...base(), 'current-snapshot-id': null, snapshots: [], 'snapshot-log': [], refs: {} };
    const req = snapshotRequirements(m);
    expect(req).toContainEqual({ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': null });
    expect(() => checkRequirements(m, req, 'n.t')).not.toThrow();
    expect(() => checkRequirements(base(), req, 'n.t')).toThrow(/expected null/);
  });
});

describe('updates', () => {
  it('add a snapshot and move main: sequence number, current snapshot, snapshot log, refs', () => {
    const m = base();
    const next = applyUpdates(m, [{ action: 'add-snapshot', snapshot: snap(11n, 2, 2000, 10n) }, { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 11n }]);
    expect(next['last-sequence-number']).toBe(2);
    expect(next['current-snapshot-id']).toBe(11n);
    expect(next['last-updated-ms']).toBe(2000);
    expect(next.refs.main).toEqual({ 'snapshot-id': 11n, type: 'branch' });
    expect(next['snapshot-log']).toEqual([{ 'snapshot-id': 10n, 'timestamp-ms': 1000 }, { 'snapshot-id': 11n, 'timestamp-ms': 2000 }]);
    expect(m.snapshots).toHaveLength(1); // the base is not changed
  });

  it('schemas, properties and removed snapshots', () => {
    const schema = { type: 'struct' as const, 'schema-id': 1, fields: [{ id: 1, name: 'a', required: false, type: 'long' }, { id: 2, name: 'b', required: false, type: 'string' }] };
    const next = applyUpdates(base(), [
      { action: 'add-schema', schema }, { action: 'set-current-schema', 'schema-id': 1 },
      { action: 'set-properties', updates: { q: '2' } }, { action: 'remove-snapshots', 'snapshot-ids': [10n] },
    ]);
    expect(next['current-schema-id']).toBe(1);
    expect(next['last-column-id']).toBe(2);
    expect(next.schemas.map((s) => s['schema-id'])).toEqual([0, 1]);
    expect(next.properties).toEqual({ p: '1', q: '2' });
    expect(next.snapshots).toEqual([]);
    expect(next['snapshot-log']).toEqual([]);
    expect(next['last-updated-ms']).toBeGreaterThan(1000);
  });
});
