import type { ColumnType } from './types';

/**
 * Oracle type → logical type. NUMBER(p,s) → decimal(p,s); unconstrained NUMBER
 * → inferred from the data (never clipping large ids); FLOAT/BINARY_DOUBLE/
 * BINARY_FLOAT → double; DATE/TIMESTAMP → timestamp; TIMESTAMP WITH (LOCAL)
 * TIME ZONE → timestamptz; character types and CLOB → string; RAW/BLOB → binary.
 */
export function oracleColumnType(typeName: string, precision?: number, scale?: number): { type: ColumnType; sourceType: string; inferred?: boolean } {
  const n = typeName.toUpperCase();
  if (n === 'NUMBER') {
    if (!precision && (scale === undefined || scale === -127 || scale === 0)) {
      return { type: { kind: 'decimal', precision: 38, scale: 10 }, sourceType: 'NUMBER', inferred: true };
    }
    if (scale === -127) return { type: { kind: 'double' }, sourceType: `FLOAT(${precision})` };
    const s = scale ?? 0;
    if (s < 0) return { type: { kind: 'decimal', precision: Math.min(38, (precision ?? 38) - s), scale: 0 }, sourceType: `NUMBER(${precision},${s})` };
    return { type: { kind: 'decimal', precision: precision ?? 38, scale: s }, sourceType: `NUMBER(${precision},${s})` };
  }
  if (n === 'FLOAT' || n === 'BINARY_DOUBLE' || n === 'BINARY_FLOAT') return { type: { kind: 'double' }, sourceType: n };
  if (n === 'DATE' || /^TIMESTAMP(\(\d\))?$/.test(n)) return { type: { kind: 'timestamp' }, sourceType: n };
  if (/^TIMESTAMP(\(\d\))? WITH (LOCAL )?TIME ZONE$/.test(n)) return { type: { kind: 'timestamptz' }, sourceType: n };
  if (n === 'RAW' || n === 'LONG RAW' || n === 'BLOB') return { type: { kind: 'binary' }, sourceType: n };
  return { type: { kind: 'string' }, sourceType: n };
}
