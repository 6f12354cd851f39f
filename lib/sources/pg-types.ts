import type { ColumnType, PrimitiveType } from './types';

/** Postgres type OIDs Tributary decodes from binary COPY. */
export const OID = {
  bool: 16, bytea: 17, char: 18, name: 19, int8: 20, int2: 21, int4: 23, text: 25, oid: 26, json: 114, xml: 142,
  float4: 700, float8: 701, bpchar: 1042, varchar: 1043, date: 1082, time: 1083, timestamp: 1114, timestamptz: 1184,
  interval: 1186, numeric: 1700, uuid: 2950, jsonb: 3802, inet: 869,
} as const;

const NAMES: Record<number, string> = Object.fromEntries(Object.entries(OID).map(([k, v]) => [v, k]));

/** Array type OID → its element's OID (pg_type.typelem) for the built-in element types. */
export const ARRAY_ELEMENT: Record<number, number> = {
  1000: OID.bool, 1001: OID.bytea, 1002: OID.char, 1003: OID.name, 1005: OID.int2, 1007: OID.int4, 1009: OID.text,
  1014: OID.bpchar, 1015: OID.varchar, 1016: OID.int8, 1021: OID.float4, 1022: OID.float8, 1028: OID.oid,
  1115: OID.timestamp, 1182: OID.date, 1183: OID.time, 1185: OID.timestamptz, 1187: OID.interval, 1231: OID.numeric,
  2951: OID.uuid, 199: OID.json, 143: OID.xml, 3807: OID.jsonb,
};

/** The array OID of each element wire type (what a list column's COPY projection casts to). */
const ARRAY_OF: Record<number, number> = Object.fromEntries(Object.entries(ARRAY_ELEMENT).map(([a, e]) => [e, Number(a)]));

/**
 * Postgres type → logical type. int2/int4 → int, int8 → long, numeric(p,s) →
 * decimal(p,s), unconstrained numeric → inferred from the data, float4/8,
 * text/varchar/char/uuid/json/jsonb → string, date, timestamp(tz), bool, bytea.
 * An array (`text[]`, `int4[]`, an enum's array…) → list of its element's type
 * (`elementOid`: pg_type.typelem, known here for built-in arrays; the source
 * looks others up); a multi-dimensional array's elements are flattened.
 * An enum → string (its label). A domain never reaches here: PostgreSQL
 * describes a domain column by its base type (RowDescription), so a domain
 * over int is an int. Anything else (time, interval, tsvector…) is read as its
 * text form.
 */
export function pgColumnType(oid: number, typmod: number, elementOid?: number): { type: ColumnType; sourceType: string; inferred?: boolean } {
  const elem = elementOid ?? ARRAY_ELEMENT[oid];
  if (elem !== undefined) {
    const e = pgColumnType(elem, typmod);
    // an unconstrained numeric[] is not profiled: its elements are kept as their text (never rounded)
    const element: PrimitiveType = e.type.kind === 'list' || e.inferred ? { kind: 'string' } : e.type;
    return { type: { kind: 'list', element }, sourceType: `${e.sourceType}[]` };
  }
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
    case 'list': {
      const e = pgWireType(t.element);
      return { oid: ARRAY_OF[e.oid], cast: `${e.cast}[]` };
    }
  }
}

/** Source OIDs whose binary form is plain UTF-8 text (read as string without a cast). */
export const TEXT_OIDS = new Set<number>([OID.text, OID.varchar, OID.bpchar, OID.name, OID.json, OID.xml, OID.char]);
