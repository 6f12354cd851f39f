import * as arrow from 'apache-arrow';
import { fromArrowType } from '../sources';
import { BRANCH_ID, INJECTED, INSERT_AT } from '../config/lake-columns';
import { lakeArrowSchema, type LakeTarget, type WriteOutcome } from './lake-target';
import { stagedBatches, type StagedFile } from './staging';
import type { UnionColumn } from '../sources';

/**
 * An in-memory LakeTarget: rows kept as objects per table. For engine tests
 * of the run loop's write decisions without a lake; the real lake is tested
 * through `lakeTarget`.
 */
export class MemoryTarget implements LakeTarget {
  readonly tables = new Map<string, { schema: arrow.Schema; rows: Map<string, Record<string, unknown>>; keys?: string[] }>();
  readonly writes: { table: string; disposition: string; rows: number }[] = [];
  private snap = 0;

  async columns(t: string): Promise<UnionColumn[] | null> {
    const x = this.tables.get(t);
    return x ? x.schema.fields.filter((f) => !INJECTED.includes(f.name)).map((f) => ({ name: f.name, type: fromArrowType(f.type) })) : null;
  }

  async prepare(t: string, columns: UnionColumn[], o: { keys?: string[]; softDelete?: boolean } = {}): Promise<arrow.Schema> {
    const s = lakeArrowSchema(columns, { keys: this.tables.has(t) ? [] : o.keys, softDelete: o.softDelete });
    const withIds = new arrow.Schema(s.fields.map((f, i) => f.clone({ metadata: new Map([['PARQUET:field_id', String(i + 1)]]) })));
    const cur = this.tables.get(t);
    this.tables.set(t, { schema: withIds, rows: cur?.rows ?? new Map(), keys: cur?.keys });
    return withIds;
  }

  private async rowsOf(files: StagedFile[]): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (const f of files) for (const b of await stagedBatches(f)) for (const r of b) out.push({ ...(r as unknown as { toJSON(): Record<string, unknown> }).toJSON() });
    return out;
  }

  async replace(t: string, files: StagedFile[], branches?: string[]): Promise<WriteOutcome> {
    const x = this.tables.get(t)!;
    const rows = await this.rowsOf(files);
    const kept = branches ? [...x.rows.values()].filter((r) => !branches.includes(String(r[BRANCH_ID]))) : [];
    x.rows = new Map([...kept, ...rows].map((r, i) => [String(i), r]));
    this.writes.push({ table: t, disposition: 'replace', rows: rows.length });
    return { snapshotId: String(++this.snap), disposition: 'replace' };
  }

  async merge(t: string, files: StagedFile[], keys: string[]): Promise<WriteOutcome> {
    const x = this.tables.get(t)!;
    const k = [...keys, BRANCH_ID];
    const keyOf = (r: Record<string, unknown>) => k.map((c) => String(r[c])).join('\u0001');
    const byKey = new Map([...x.rows.values()].map((r) => [keyOf(r), r]));
    let inserted = 0; let updated = 0;
    for (const r of await this.rowsOf(files)) {
      const prev = byKey.get(keyOf(r));
      if (prev) { r[INSERT_AT] = prev[INSERT_AT]; updated++; } else inserted++;
      byKey.set(keyOf(r), r);
    }
    x.rows = byKey;
    this.writes.push({ table: t, disposition: 'merge', rows: inserted + updated });
    return { snapshotId: String(++this.snap), disposition: 'merge', inserted, updated };
  }

  async dropIfEmpty(t: string): Promise<boolean> {
    if (!this.tables.has(t) || this.writes.some((w) => w.table === t)) return false;
    this.tables.delete(t);
    return true;
  }

  // eslint-disable-next-line require-yield
  async *scan(): AsyncGenerator<arrow.RecordBatch> { throw new Error('etl: the in-memory target has no scan (deletes: detect needs the lake)'); }

  async expire(): Promise<void> {}
  async compact(): Promise<string[]> { return []; }
}
