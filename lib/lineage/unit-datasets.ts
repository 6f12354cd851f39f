import { locationDataset, sourceDataset, type SourceAddress } from './naming';
import type { LineageDataset, LineageDatasets } from './types';

/** A lake table as the lineage needs it: where it lives and its current Iceberg schema. */
export interface LakeTableFacts { location: string; fields: { name: string; type: unknown }[] }

/** An Iceberg type as text: primitives as they are, `list<…>`, `map<…>`, `struct`. */
function icebergTypeText(t: unknown): string {
  if (typeof t === 'string') return t;
  const o = t as { type?: string; element?: unknown; key?: unknown; value?: unknown };
  if (o?.type === 'list') return `list<${icebergTypeText(o.element)}>`;
  if (o?.type === 'map') return `map<${icebergTypeText(o.key)}, ${icebergTypeText(o.value)}>`;
  return o?.type ?? 'unknown';
}

/**
 * The datasets of a run made of (table × branch) units (ETL, DQ): each unit's source
 * table on its branch, and each lake table with its schema. `rowsWritten` (ETL) puts
 * the rows a run wrote per lake table on the outputs; without it (DQ, which reads both
 * sides) the lake tables are inputs. Pure: the caller looks the facts up.
 */
export function unitDatasets(o: {
  units: { table: string; branch: string; rows?: number; wrote?: boolean }[];
  /** lake table name → its source table (`schema.table`; a subquery names none) */
  sources: Map<string, string>;
  branches: Map<string, SourceAddress>;
  /** lake table name → the table, when it exists */
  lakeTables: Map<string, LakeTableFacts>;
  writes: boolean;
}): LineageDatasets {
  const inputs = new Map<string, LineageDataset>();
  const rows = new Map<string, number>();
  for (const u of o.units) {
    const src = o.branches.get(u.branch);
    const table = o.sources.get(u.table);
    const d = src && table ? sourceDataset(src, table) : null;
    if (d) inputs.set(`${d.namespace} ${d.name}`, d);
    rows.set(u.table, (rows.get(u.table) ?? 0) + (u.wrote ? u.rows ?? 0 : 0));
  }
  const lake: LineageDataset[] = [];
  for (const [table, n] of rows) {
    const t = o.lakeTables.get(table);
    if (!t) continue;
    lake.push({
      ...locationDataset(t.location),
      fields: t.fields.map((f) => ({ name: f.name, type: icebergTypeText(f.type) })),
      ...(o.writes ? { rowCount: n } : {}),
    });
  }
  return o.writes ? { inputs: [...inputs.values()], outputs: lake } : { inputs: [...inputs.values(), ...lake], outputs: [] };
}
