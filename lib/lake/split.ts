import * as arrow from 'apache-arrow';
import { takeBatch, valueAt } from './arrow-util';
import { toComparable } from './bounds';
import { partitionFieldType, partitionKey, partitionValueToAvro } from './manifest';
import type { IcebergSchema, PartitionSpec } from './types';

/** Split a batch conformed to `schema` by identity-partition value (Avro-form values). */
export function splitByPartition(batch: arrow.RecordBatch, schema: IcebergSchema, spec: PartitionSpec): { partition: Record<string, unknown>; key: string; batch: arrow.RecordBatch }[] {
  const n = batch.numRows;
  if (spec.fields.length === 0) return [{ partition: {}, key: '', batch }];
  const partCols = spec.fields.map((f) => {
    const src = schema.fields.find((x) => x.id === f['source-id'])!;
    return { name: f.name, col: schema.fields.indexOf(src), type: partitionFieldType(schema, f) };
  });
  const partOf = (i: number) => {
    const p: Record<string, unknown> = {};
    for (const pc of partCols) p[pc.name] = partitionValueToAvro(pc.type, toComparable(pc.type, valueAt(batch.data.children[pc.col], i)));
    return p;
  };
  const first = partOf(0);
  const cols = partCols.map((pc) => batch.data.children[pc.col]);
  // Fast path: one partition value in the whole batch (the usual case: one branch per batch).
  if (cols.length === 1) {
    const d = cols[0];
    const v = d.values as unknown as ArrayLike<unknown>;
    if (d.nullCount === 0 && !d.valueOffsets && d.stride === 1 && d.type.typeId !== arrow.Type.Bool && v) {
      const x = v[0]; let same = true;
      for (let i = 1; i < n; i++) if (v[i] !== x) { same = false; break; }
      if (same) return [{ partition: first, key: partitionKey(first, spec), batch }];
    }
  }
  const rowKey = (i: number) => cols.map((d) => { const v = valueAt(d, i); return v === null ? '∅' : String(v); }).join('|');
  const groups = new Map<string, number[]>();
  for (let i = 0; i < n; i++) { const k = rowKey(i); let g = groups.get(k); if (!g) groups.set(k, (g = [])); g.push(i); }
  return [...groups.values()].map((idx) => {
    const contiguous = idx[idx.length - 1] - idx[0] === idx.length - 1;
    const partition = partOf(idx[0]);
    return { partition, key: partitionKey(partition, spec), batch: contiguous ? (idx.length === n ? batch : batch.slice(idx[0], idx[0] + idx.length)) : takeBatch(batch, idx) };
  });
}
