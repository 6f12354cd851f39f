import * as arrow from 'apache-arrow';
import { parseTimestampMicros, toJulianDay } from '../sources';
import type { QuerySpec } from '../sources';
import type { BatchPredicate } from '../reconcile/arrow-side';
import { canonicalScaled } from '../reconcile/canonical';
import { AppError } from '../errors';

// The window values' checks are pure (the request schema uses them without loading Arrow).
export { checkWindowValue } from './window-value';

/**
 * The shared window of a (table, branch) unit: both checks, on both sides,
 * read exactly these rows.
 *
 * - own date column: `date >= since` (no `--since`: no lower bound — the
 *   window covers everything the table holds, from the start of its INITIAL
 *   range) and `date <= last watermark` (control_state; `--until` overrides: a
 *   bare date means through the end of that day), plus the table's INITIAL
 *   range (rows the ETL never loads are not "missing"). A window whose start
 *   is after its end is an error naming both ends, never an empty OK.
 *   A numeric (Julian day) date column gets the equivalent Julian literals.
 * - master (no date column): compared in full.
 * - helper-driven: the date and watermark are the helper's columns, which the
 *   lake does not hold; the upper bound is skipped and the source is compared
 *   over the ETL's load range (the INITIAL range on the helper's date, through
 *   the join), the lake in full — `window_note` says so.
 */
export interface UnitWindow {
  /** Window bounds as recorded (null: none). */
  start: string | null;
  end: string | null;
  note: string | null;
  /** Canonical name of the window column (null: no window on the lake). */
  column: string | null;
  julian: boolean;
  /** Numeric bounds (µs since epoch as wall clock, or Julian days). */
  lower: number | null;
  upper: number | null;
  /** Upper bound exclusive (a bare --until date: before the next day). */
  upperExclusive: boolean;
  /** The INITIAL range, applied to both sides (the helper's column at the source only). */
  initial: { column: string; onHelper: boolean; operator: string; value: number } | null;
}

export interface WindowInput {
  spec: QuerySpec;
  category: 'masters' | 'transactions';
  /** `YYYY-MM-DD[ HH:MM:SS]`; null: no lower bound (the whole table). */
  since: string | null;
  until?: string | null;
  watermark: { cdc: string | null; date: string | null } | null;
  /** The window column is numeric at the source (a Julian day number). */
  julian: boolean;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A window that cannot hold a row (its start after its end). */
export class WindowError extends AppError {
  constructor(message: string) { super('validation', message); this.name = 'WindowError'; }
}
const micros = (v: string) => Number(parseTimestampMicros(v.trim().replace('T', ' ')));

function bound(v: string, julian: boolean): number {
  if (julian) return /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : toJulianDay(v);
  return micros(v);
}

export function unitWindow(w: WindowInput): UnitWindow {
  const none: UnitWindow = { start: null, end: null, note: null, column: null, julian: false, lower: null, upper: null, upperExclusive: false, initial: null };
  const h = w.spec.helper;
  if (h) {
    const initial = h.dateColumn && w.spec.initial
      ? { column: h.dateColumn.toUpperCase(), onHelper: true, operator: w.spec.initial.operator, value: bound(String(w.spec.initial.value), w.julian) }
      : null;
    return {
      ...none, initial,
      note: `helper-driven: the window column and watermark are the helper's (${h.table}.${h.dateColumn ?? h.cdcColumn}), which the lake does not hold; `
        + `upper bound skipped; source compared over the load range${initial ? ` (${h.dateColumn} ${w.spec.initial!.operator} ${w.spec.initial!.value})` : ' (all rows with a helper row)'}, lake partition in full`,
    };
  }
  const col = w.spec.dateColumn;
  // said for every table without one (masters too): a note-less result read as if a window had applied
  if (!col) return { ...none, note: 'no date column: compared in full' };
  const lower = w.since === null ? null : bound(w.since, w.julian);
  let end: string | null = null;
  let upper: number | null = null;
  let upperExclusive = false;
  let note: string | null = null;
  if (w.until) {
    end = w.until;
    if (DATE_ONLY.test(w.until.trim())) {
      // a bare date includes that whole day
      if (w.julian) upper = toJulianDay(w.until);
      else { upper = micros(w.until) + 86_400_000_000; upperExclusive = true; }
    } else upper = bound(w.until, w.julian);
  } else {
    const wm = w.watermark?.date ?? w.watermark?.cdc ?? null;
    if (wm !== null) { end = wm; upper = bound(wm, w.julian); }
    else note = 'no watermark in control_state: no upper bound';
  }
  const initial = w.spec.initial
    ? { column: col.toUpperCase(), onHelper: false, operator: w.spec.initial.operator, value: bound(String(w.spec.initial.value), w.julian) }
    : null;
  // no --since: everything the table holds — from where its INITIAL range starts, if it has a lower end
  const start = w.since ?? (w.spec.initial && ['>', '>='].includes(w.spec.initial.operator) ? String(w.spec.initial.value) : null);
  if (w.since === null) note = [note, `no --since: the whole table${start !== null ? ` from its INITIAL range (${col} ${w.spec.initial!.operator} ${start})` : ''}`].filter(Boolean).join('; ');
  if (lower !== null && upper !== null && (upperExclusive ? lower >= upper : lower > upper)) {
    throw new WindowError(`dq: empty window: its start ${w.since} is after its end ${end}${w.until ? '' : ' (the last watermark in control_state)'}; pass an earlier --since or leave it out`);
  }
  if (w.julian) note = [note, `Julian-day column ${col.toUpperCase()}: window ${lower ?? '-∞'} … ${upper ?? '∞'}`].filter(Boolean).join('; ');
  return { start, end, note, column: col.toUpperCase(), julian: w.julian, lower, upper, upperExclusive, initial };
}

const OPS: Record<string, (a: number, b: number) => boolean> = {
  '=': (a, b) => a === b, '>': (a, b) => a > b, '>=': (a, b) => a >= b, '<': (a, b) => a < b, '<=': (a, b) => a <= b,
  '<>': (a, b) => a !== b, '!=': (a, b) => a !== b,
};

/** A reader of a lake column as a number comparable with the window bounds (µs or Julian days), null for NULL. */
function numberReader(type: arrow.DataType): (d: arrow.Data, i: number) => number | null {
  const isNull = (d: arrow.Data, i: number) => {
    const bm = d.nullBitmap; if (!bm || !bm.length || d.nullCount === 0) return false;
    const j = d.offset + i; return (bm[j >> 3] & (1 << (j & 7))) === 0;
  };
  if (type.typeId === arrow.Type.Timestamp) {
    const mul = [1e6, 1e3, 1, 1e-3][(type as arrow.Timestamp).unit];
    return (d, i) => isNull(d, i) ? null : Number((d.values as BigInt64Array)[i]) * mul;
  }
  if (type.typeId === arrow.Type.Date) {
    if ((type as arrow.Date_).unit === arrow.DateUnit.DAY) return (d, i) => isNull(d, i) ? null : (d.values as Int32Array)[i] * 86_400_000_000;
    return (d, i) => isNull(d, i) ? null : Number((d.values as BigInt64Array)[i]) * 1000;
  }
  if (type.typeId === arrow.Type.Decimal) {
    const t = type as arrow.Decimal;
    const stride = t.bitWidth / 32;
    return (d, i) => {
      if (isNull(d, i)) return null;
      const w = d.values as Uint32Array; const b = i * stride; // values pre-sliced: row i of a slice is values[i]
      let v = 0n; for (let k = stride - 1; k >= 0; k--) v = (v << 32n) | BigInt(w[b + k]);
      return Number(canonicalScaled(BigInt.asIntN(stride * 32, v), t.scale));
    };
  }
  return (d, i) => isNull(d, i) ? null : Number((d.values as ArrayLike<number | bigint>)[i]);
}

/** The window as a decode-loop predicate over the lake's columns. */
export function lakePredicate(w: UnitWindow): BatchPredicate | undefined {
  if (!w.column) return undefined;
  const col = w.column;
  const ini = w.initial && !w.initial.onHelper ? w.initial : null;
  return (batch) => {
    const j = batch.schema.fields.findIndex((f) => f.name === col);
    if (j < 0) throw new AppError('validation', `dq: window column ${col} is not in the lake table`);
    const read = numberReader(batch.schema.fields[j].type);
    const data = batch.data.children[j] as arrow.Data;
    return (i) => {
      const v = read(data, i);
      if (v === null) return false;
      if (w.lower !== null && v < w.lower) return false;
      if (w.upper !== null && (w.upperExclusive ? v >= w.upper : v > w.upper)) return false;
      if (ini && !OPS[ini.operator](v, ini.value)) return false;
      return true;
    };
  };
}
