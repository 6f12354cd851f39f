/**
 * Decoder of the `pgoutput` logical replication messages, protocol version 1 (PostgreSQL docs,
 * "Logical Replication Message Formats"): Begin, Commit, Origin, Relation, Type, Insert, Update,
 * Delete, Truncate, Message. Tuple values arrive in their type's text output form (`t`), as NULL
 * (`n`), or as an unchanged TOASTed value (`u`) the update did not touch. Pure: bytes in, objects
 * out; the stream (stream.ts) keeps the relations it has seen.
 */

/** One column of a tuple: its text form, null, or `undefined` for an unchanged TOASTed value. */
export type TupleValue = string | null | undefined;

export interface RelationColumn { name: string; typeOid: number; typeMod: number; isKey: boolean }

export type PgOutputMessage =
  | { tag: 'begin'; finalLsn: bigint; commitTimeMicros: bigint; xid: number }
  | { tag: 'commit'; flags: number; commitLsn: bigint; endLsn: bigint; commitTimeMicros: bigint }
  | { tag: 'origin'; lsn: bigint; name: string }
  | { tag: 'relation'; relationId: number; schema: string; name: string; replicaIdentity: string; columns: RelationColumn[] }
  | { tag: 'type'; typeOid: number; schema: string; name: string }
  | { tag: 'insert'; relationId: number; row: TupleValue[] }
  | { tag: 'update'; relationId: number; key: TupleValue[] | null; old: TupleValue[] | null; row: TupleValue[] }
  | { tag: 'delete'; relationId: number; key: TupleValue[] | null; old: TupleValue[] | null }
  | { tag: 'truncate'; options: number; relationIds: number[] }
  | { tag: 'message'; transactional: boolean; lsn: bigint; prefix: string; content: Buffer };

/** 2000-01-01 − 1970-01-01 in µs: pgoutput's timestamps count from PostgreSQL's epoch. */
const PG_EPOCH_US = 946_684_800_000_000n;

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  u8(): number { return this.buf.readUInt8(this.pos++); }
  i16(): number { const v = this.buf.readInt16BE(this.pos); this.pos += 2; return v; }
  i32(): number { const v = this.buf.readInt32BE(this.pos); this.pos += 4; return v; }
  u32(): number { const v = this.buf.readUInt32BE(this.pos); this.pos += 4; return v; }
  u64(): bigint { const v = this.buf.readBigUInt64BE(this.pos); this.pos += 8; return v; }
  i64(): bigint { const v = this.buf.readBigInt64BE(this.pos); this.pos += 8; return v; }
  char(): string { return String.fromCharCode(this.u8()); }
  cstring(): string {
    const end = this.buf.indexOf(0, this.pos);
    if (end < 0) throw new Error('cdc: pgoutput string without its terminator');
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end + 1;
    return s;
  }
  bytes(n: number): Buffer { const b = this.buf.subarray(this.pos, this.pos + n); this.pos += n; return b; }
  tuple(): TupleValue[] {
    const n = this.i16();
    const out: TupleValue[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const kind = this.char();
      if (kind === 'n') out[i] = null;
      else if (kind === 'u') out[i] = undefined;
      else if (kind === 't') { const len = this.i32(); out[i] = this.buf.toString('utf8', this.pos, this.pos + len); this.pos += len; }
      else throw new Error(`cdc: pgoutput tuple column of kind '${kind}' (binary values need proto_version 2's binary option, not asked for)`);
    }
    return out;
  }
}

/** Microseconds since 1970 of a pgoutput timestamp. */
export function unixMicros(pgMicros: bigint): bigint { return pgMicros + PG_EPOCH_US; }

/** Decode one pgoutput message (the payload of an XLogData frame). */
export function decodePgOutput(buf: Buffer): PgOutputMessage {
  const r = new Reader(buf);
  const tag = r.char();
  switch (tag) {
    case 'B': return { tag: 'begin', finalLsn: r.u64(), commitTimeMicros: r.i64(), xid: r.u32() };
    case 'C': return { tag: 'commit', flags: r.u8(), commitLsn: r.u64(), endLsn: r.u64(), commitTimeMicros: r.i64() };
    case 'O': return { tag: 'origin', lsn: r.u64(), name: r.cstring() };
    case 'R': {
      const relationId = r.u32(); const schema = r.cstring(); const name = r.cstring(); const replicaIdentity = r.char();
      const n = r.i16();
      const columns: RelationColumn[] = [];
      for (let i = 0; i < n; i++) {
        const flags = r.u8();
        columns.push({ isKey: (flags & 1) === 1, name: r.cstring(), typeOid: r.u32(), typeMod: r.i32() });
      }
      return { tag: 'relation', relationId, schema, name, replicaIdentity, columns };
    }
    case 'Y': return { tag: 'type', typeOid: r.u32(), schema: r.cstring(), name: r.cstring() };
    case 'I': {
      const relationId = r.u32();
      const n = r.char();
      if (n !== 'N') throw new Error(`cdc: pgoutput insert with '${n}' where 'N' belongs`);
      return { tag: 'insert', relationId, row: r.tuple() };
    }
    case 'U': {
      const relationId = r.u32();
      let key: TupleValue[] | null = null; let old: TupleValue[] | null = null;
      let k = r.char();
      // 'K': the old key (the key changed); 'O': the whole old row (REPLICA IDENTITY FULL)
      if (k === 'K') { key = r.tuple(); k = r.char(); } else if (k === 'O') { old = r.tuple(); k = r.char(); }
      if (k !== 'N') throw new Error(`cdc: pgoutput update with '${k}' where 'N' belongs`);
      return { tag: 'update', relationId, key, old, row: r.tuple() };
    }
    case 'D': {
      const relationId = r.u32();
      const k = r.char();
      if (k === 'K') return { tag: 'delete', relationId, key: r.tuple(), old: null };
      if (k === 'O') return { tag: 'delete', relationId, key: null, old: r.tuple() };
      throw new Error(`cdc: pgoutput delete with '${k}' where 'K' or 'O' belongs`);
    }
    case 'T': {
      const n = r.u32(); const options = r.u8();
      const relationIds: number[] = [];
      for (let i = 0; i < n; i++) relationIds.push(r.u32());
      return { tag: 'truncate', options, relationIds };
    }
    case 'M': {
      const transactional = r.u8() === 1; const lsn = r.u64(); const prefix = r.cstring();
      const len = r.u32();
      return { tag: 'message', transactional, lsn, prefix, content: Buffer.from(r.bytes(len)) };
    }
    default: throw new Error(`cdc: unknown pgoutput message '${tag}'`);
  }
}
