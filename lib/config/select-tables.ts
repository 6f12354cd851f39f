import { TablesConfigError, type TableDef } from './tables-json';

/**
 * Pick tables by OWNER.TABLE, TABLE, subquery name or lake name
 * (case-insensitive), in the order asked; none asked means all. An unknown
 * name is a usage error naming `--tables` and the known lake names.
 */
export function selectTables(all: TableDef[], wanted: string[]): TableDef[] {
  if (!wanted.length) return all;
  const out: TableDef[] = [];
  for (const w of wanted) {
    const k = w.trim().toLowerCase();
    const hit = all.filter((d) => d.lakeName === k || d.source.toLowerCase() === k || d.source.toLowerCase().split('.').pop() === k || (d.entry.name ?? '').toLowerCase() === k);
    if (!hit.length) throw new TablesConfigError(`--tables: unknown table ${w} (known: ${all.map((d) => d.lakeName).join(', ')})`);
    for (const h of hit) if (!out.includes(h)) out.push(h);
  }
  return out;
}
