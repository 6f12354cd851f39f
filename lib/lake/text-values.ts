import * as arrow from 'apache-arrow';

/**
 * Text (a CSV field, a fixture) as the value of an Arrow column type, exactly
 * or not at all: `10.5` is not a long, `1.239` not a decimal(10,2), `maybe`
 * not a boolean, `2024-02-30` not a date. A value the type cannot hold is a
 * TextValueError saying what was expected; the caller names the row and the
 * column. (Number(), BigInt() and Date.parse would otherwise cut digits, give
 * NaN or an invalid date, or throw a message naming neither.)
 */
export class TextValueError extends Error {}

const INT = /^[-+]?\d+$/;
const FLOAT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const SPECIAL_FLOAT: Record<string, number> = { nan: NaN, inf: Infinity, '+inf': Infinity, '-inf': -Infinity, infinity: Infinity, '+infinity': Infinity, '-infinity': -Infinity };
const DECIMAL = /^([-+]?)(\d*)(?:\.(\d*))?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** ISO 8601 / SQL timestamp: date, `T` or space, time with up to 9 fraction digits, optional zone. */
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

const fail = (v: string, what: string) => new TextValueError(`'${v.length > 40 ? `${v.slice(0, 40)}…` : v}' is not ${what}`);

/** The value of `type` that `v` spells (null for empty or undefined); Int64 as bigint, timestamps as bigint in the type's unit, decimals as their 128-bit words. */
export function textValue(type: arrow.DataType, v: string | undefined): unknown {
  if (v === undefined || v === '') return null;
  const t = v.trim();
  switch (type.typeId) {
    case arrow.Type.Int: return intValue(type as arrow.Int, t, v);
    case arrow.Type.Float: {
      if (FLOAT.test(t)) return Number(t);
      const s = SPECIAL_FLOAT[t.toLowerCase()];
      if (s !== undefined) return s;
      throw fail(v, 'a number');
    }
    case arrow.Type.Bool:
      if (/^(true|t|yes|y|1)$/i.test(t)) return true;
      if (/^(false|f|no|n|0)$/i.test(t)) return false;
      throw fail(v, 'a boolean (true/false, t/f, yes/no, 1/0)');
    case arrow.Type.Decimal: return decimalValue(type as arrow.Decimal, t, v);
    case arrow.Type.Date: return dateValue(t, v);
    case arrow.Type.Timestamp: return timestampValue(type as arrow.Timestamp, t, v);
    default: return v;
  }
}

function intValue(type: arrow.Int, t: string, v: string): number | bigint {
  if (!INT.test(t)) throw fail(v, `an integer (${type.bitWidth}-bit)`);
  const b = BigInt(t);
  const w = BigInt(type.bitWidth);
  const lo = type.isSigned ? -(1n << (w - 1n)) : 0n, hi = type.isSigned ? (1n << (w - 1n)) - 1n : (1n << w) - 1n;
  if (b < lo || b > hi) throw fail(v, `within the ${type.bitWidth}-bit integer range`);
  return type.bitWidth === 64 ? b : Number(b);
}

/** A decimal's unscaled value at the type's scale as four little-endian 32-bit words; extra fraction digits other than zeros and more digits than the precision are refused. */
export function decimalValue(type: Pick<arrow.Decimal, 'scale' | 'precision'>, t: string, v = t): Uint32Array {
  const m = DECIMAL.exec(t);
  if (!m || (!m[2] && !m[3])) throw fail(v, `a decimal(${type.precision},${type.scale})`);
  const frac = m[3] ?? '';
  if (/[1-9]/.test(frac.slice(type.scale))) throw fail(v, `a decimal(${type.precision},${type.scale}) (more than ${type.scale} fraction digits)`);
  const digits = ((m[2] || '0') + frac.padEnd(type.scale, '0').slice(0, type.scale)).replace(/^0+(?=\d)/, '');
  if (digits.length > type.precision) throw fail(v, `a decimal(${type.precision},${type.scale}) (more than ${type.precision} digits)`);
  let x = BigInt.asUintN(128, m[1] === '-' ? -BigInt(digits) : BigInt(digits));
  const out = new Uint32Array(4);
  for (let k = 0; k < 4; k++) { out[k] = Number(x & 0xffffffffn); x >>= 32n; }
  return out;
}

function dateValue(t: string, v: string): Date {
  const m = DATE.exec(t);
  const d = m ? new Date(`${t}T00:00:00Z`) : null;
  // Date rolls 2024-02-30 over to March 2: a date that does not print back as written does not exist
  if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== t) throw fail(v, 'a date (YYYY-MM-DD)');
  return d;
}

const UNIT_PER_SECOND: Record<number, bigint> = { [arrow.TimeUnit.SECOND]: 1n, [arrow.TimeUnit.MILLISECOND]: 1000n, [arrow.TimeUnit.MICROSECOND]: 1_000_000n, [arrow.TimeUnit.NANOSECOND]: 1_000_000_000n };

/** A timestamp in the type's unit since the epoch; a value without a zone is UTC (what the lake stores); fraction digits finer than the unit are refused. */
function timestampValue(type: arrow.Timestamp, t: string, v: string): bigint {
  const m = TIMESTAMP.exec(t);
  if (!m) throw fail(v, 'a timestamp (YYYY-MM-DD HH:MM:SS[.ffffff][zone])');
  const [, day, hh = '00', mm = '00', ss = '00', frac = '', zone] = m;
  const z = !zone || /^z$/i.test(zone) ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const ms = Date.parse(`${day}T${hh}:${mm}:${ss}${z}`);
  if (Number.isNaN(ms) || !dateOk(day) || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) throw fail(v, 'a timestamp (YYYY-MM-DD HH:MM:SS[.ffffff][zone])');
  const per = UNIT_PER_SECOND[type.unit];
  const digits = per.toString().length - 1;
  if (/[1-9]/.test(frac.slice(digits))) throw fail(v, `a timestamp in ${['seconds', 'milliseconds', 'microseconds', 'nanoseconds'][type.unit]} (more fraction digits)`);
  const sub = digits ? BigInt(frac.padEnd(digits, '0').slice(0, digits)) : 0n;
  return BigInt(ms / 1000) * per + sub;
}

const dateOk = (day: string) => new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;

/** A column of text values as Arrow data of `type` (timestamps built from their exact values in the type's unit). */
export function textColumn(type: arrow.DataType, values: unknown[]): arrow.Data {
  if (type.typeId !== arrow.Type.Timestamp) return arrow.vectorFromArray(values, type).data[0];
  const n = values.length;
  const data = new BigInt64Array(n);
  const valid = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  values.forEach((x, i) => {
    if (x === null) { nulls++; return; }
    data[i] = x as bigint;
    valid[i >> 3] |= 1 << (i & 7);
  });
  return arrow.makeData({ type: type as arrow.Timestamp, length: n, nullCount: nulls, nullBitmap: nulls ? valid : undefined, data } as never);
}
