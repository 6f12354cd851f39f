import type { ColumnType } from './types';

/** Postgres type OIDs Tributary decodes from binary COPY. */
export const OID = {
  bool: 16, bytea: 17, char: 18, name: 19, int8: 20, int2: 21, int4: 23, text: 25, oid: 26, json: 114, xml: 142,
  float4: 700, float8: 701, bpchar: 1042, varchar: 1043, date: 1082, time: 1083, timestamp: 1114, timestamptz: 1184,
  interval: 1186, numeric: 1700, uuid: 2950, jsonb: 3802,
} as const;

const NAMES: Record<number, string> = Object.fromEntries(Object.entries(OID).map(([k, v]) => [v, k]));

/**
 * Postgres type → logical type. int2/int4 → int, int8 → long, numeric(p,s) →
 * decimal(p,s), unconstrained numeric → inferred from the data, float4/8,
 * text/varchar/char/uuid/json/jsonb → string, date, timestamp(tz), bool, bytea.
 * Anything else (time, interval, arrays, enums…) is read as its text form.
 */
export function pgColumnType(oid: number, typmod: number): { type: ColumnType; sourceType: string; inferred?: boolean } {
  switch (oid) {
    case OID.int2: case OID.int4: return { type: { kind: 'int' }, sourceType: NAMES[oid] };
    case OID.int8: case OID.oid: return { type: { kind: 'long' }, sourceType: NAMES[oid] };
    case OID.float4: return { type: { kind: 'float' }, sourceType: 'float4' };
    case OID.float8: return { type: { kind: 'double' }, sourceType: 'float8' };
    case OID.numeric: {
      if (typmod < 4) return { type: { kind: 'decimal', precision: 38, scale: 10 }, sourceType: 'numeric', inferred: true };
      const p = ((typmod - 4) >> 16) & 0xffff;
      const s = (typmod - 4) & 0xffff;
      if (p > 38) return { type: { kind: 'string' }, sourceType: `numeric(${p},${s})` };
      return { type: { kind: 'decimal', precision: p, scale: s }, sourceType: `numeric(${p},${s})` };
    }
    case OID.bool: return { type: { kind: 'boolean' }, sourceType: 'bool' };
    case OID.bytea: return { type: { kind: 'binary' }, sourceType: 'bytea' };
    case OID.date: return { type: { kind: 'date' }, sourceType: 'date' };
    case OID.timestamp: return { type: { kind: 'timestamp' }, sourceType: 'timestamp' };
    case OID.timestamptz: return { type: { kind: 'timestamptz' }, sourceType: 'timestamptz' };
    default: return { type: { kind: 'string' }, sourceType: NAMES[oid] ?? `oid:${oid}` };
  }
}

/** The Postgres type a target column is decoded from (the COPY projection casts to it when the source differs). */
export function pgWireType(t: ColumnType): { oid: number; cast: string } {
  switch (t.kind) {
    case 'int': return { oid: OID.int4, cast: 'int4' };
    case 'long': return { oid: OID.int8, cast: 'int8' };
    case 'float': return { oid: OID.float4, cast: 'float4' };
    case 'double': return { oid: OID.float8, cast: 'float8' };
    case 'decimal': return { oid: OID.numeric, cast: `numeric(${t.precision},${t.scale})` };
    case 'string': return { oid: OID.text, cast: 'text' };
    case 'binary': return { oid: OID.bytea, cast: 'bytea' };
    case 'boolean': return { oid: OID.bool, cast: 'bool' };
    case 'date': return { oid: OID.date, cast: 'date' };
    case 'timestamp': return { oid: OID.timestamp, cast: 'timestamp' };
    case 'timestamptz': return { oid: OID.timestamptz, cast: 'timestamptz' };
  }
}

/** Source OIDs whose binary form is plain UTF-8 text (read as string without a cast). */
export const TEXT_OIDS = new Set<number>([OID.text, OID.varchar, OID.bpchar, OID.name, OID.json, OID.xml, OID.char]);
