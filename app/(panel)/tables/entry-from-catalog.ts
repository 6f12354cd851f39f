/**
 * A tables.json entry for a table picked from a source's catalog, with the
 * picker's suggestions: the primary key as `unique_key`, the likeliest
 * watermark as `cdc_column`. Pure: the page and its test use it.
 */
export interface PickedTable {
  table: string;
  primaryKey: string[];
  watermarkCandidates: { name: string; type: string }[];
}

export interface EntryChoice {
  /** Key columns; the primary key when the user did not change it. */
  key: string[];
  /** The watermark column, or null for a full load every time (a small master table). */
  watermark: string | null;
  category: 'masters' | 'transactions';
}

export function suggestedChoice(t: PickedTable): EntryChoice {
  const wm = t.watermarkCandidates.find((c) => /^(date|timestamp)/i.test(c.type)) ?? null;
  return { key: t.primaryKey, watermark: wm?.name ?? null, category: 'masters' };
}

export function entryFromCatalog(t: PickedTable, c: EntryChoice): Record<string, unknown> {
  const entry: Record<string, unknown> = { table: t.table, unique_key: c.key.length === 1 ? c.key[0] : c.key };
  if (c.watermark) entry.cdc_column = c.watermark;
  entry.category = c.category;
  return entry;
}
