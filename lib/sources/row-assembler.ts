import type * as arrow from 'apache-arrow';
import { ColumnBuilder, assembleBatch, constantColumn, trackedText } from './batch-builder';
import { parseTimestampMicros, toScaledBigInt, wallClockMicros } from './values';
import type { ColumnType, ReadStats, ReadTarget, SourceColumn } from './types';

/**
 * Builds target-shaped Arrow batches from rows given as value arrays in the
 * order of `columns` (the generic path for Oracle array fetches and the
 * synthetic source; Postgres has its own binary decoder).
 */
export class RowAssembler {
  private readonly builders: (ColumnBuilder | null)[];
  private readonly map: number[];
  private readonly trackIdx: { col: number; name: string; type: ColumnType }[];
  private row = 0;

  constructor(private readonly columns: SourceColumn[], private readonly target: ReadTarget, private readonly batchSize: number, private readonly stats: ReadStats) {
    const idx = new Map(columns.map((c, i) => [c.name, i]));
    this.map = target.fields.map((f) => (target.constants[f.name] ? -1 : idx.get(f.source ?? f.name) ?? -1));
    this.builders = target.fields.map((f, i) => (this.map[i] >= 0 ? new ColumnBuilder(f.type, batchSize) : null));
    this.trackIdx = target.track.filter((n) => idx.has(n)).map((n) => ({ col: idx.get(n)!, name: n, type: columns[idx.get(n)!].type }));
  }

  /** Add one row; returns a batch when one filled up. */
  add(values: unknown[]): arrow.RecordBatch | null {
    const r = this.row;
    for (let i = 0; i < this.builders.length; i++) {
      const b = this.builders[i];
      if (b) { b.prepare(r); b.set(r, values[this.map[i]]); }
    }
    for (const t of this.trackIdx) {
      const v = values[t.col];
      if (v === null || v === undefined) continue;
      const cmp = comparable(t.type, v);
      const prev = this.stats.max[t.name];
      if (!prev || cmp > prev.cmp) this.stats.max[t.name] = { cmp, text: trackedText(t.type, cmp) };
    }
    this.row++;
    this.stats.rows++;
    return this.row === this.batchSize ? this.flush() : null;
  }

  get buffered(): number { return this.row; }

  flush(): arrow.RecordBatch {
    const len = this.row;
    const children = this.target.fields.map((f, i) => {
      const b = this.builders[i];
      if (b) return b.finish(len);
      const k = this.target.constants[f.name];
      return constantColumn(f.type, k ? k.value : null, len);
    });
    this.row = 0;
    return assembleBatch(this.target.schema, children, len);
  }
}

/** A watermark value in comparable form: µs for timestamps, days for dates, numbers, strings. */
export function comparable(t: ColumnType, v: unknown): number | bigint | string {
  switch (t.kind) {
    case 'timestamp': return v instanceof Date ? wallClockMicros(v) : typeof v === 'bigint' ? v : parseTimestampMicros(String(v));
    case 'timestamptz': return v instanceof Date ? BigInt(v.getTime()) * 1000n : typeof v === 'bigint' ? v : parseTimestampMicros(String(v));
    case 'date': return v instanceof Date ? Math.floor(Number(wallClockMicros(v) / 86_400_000_000n)) : typeof v === 'number' ? v : Math.floor(Number(parseTimestampMicros(String(v)) / 86_400_000_000n));
    case 'decimal': return toScaledBigInt(v as string, t.scale);
    case 'int': case 'long': case 'float': case 'double': return typeof v === 'bigint' ? v : Number(v);
    default: return String(v);
  }
}
