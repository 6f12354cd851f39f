/**
 * Avro object container files (Avro 1.11 spec, "Object Container Files"),
 * written by hand around `avsc`'s record encoder so the header carries the
 * schema JSON exactly as Iceberg wants it (field-id, element-id attributes)
 * plus Iceberg's key/value metadata. Longs are bigints so 64-bit snapshot ids
 * survive.
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import avro from 'avsc';
import { AppError } from '../errors';
import { Lru } from '../cache/lru';

const MAGIC = Buffer.from([0x4f, 0x62, 0x6a, 0x01]);

const longType = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint | number) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b; },
  fromJSON: (x: unknown) => BigInt(x as number),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint' || (typeof n === 'number' && Number.isInteger(n)),
  compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

const metaType = avro.Type.forSchema({ type: 'map', values: 'bytes' });
const plainLong = avro.Type.forSchema('long');

/**
 * Compiled types by schema text. avsc compiles each type it is given (generated decode and encode
 * functions), which cost more than decoding a small manifest; a table's manifests and lists
 * share a few schemas, and every plan, scan and commit reads or writes some.
 */
const compiled = new Lru<string, avro.Type>({ max: 256 });

export function avroType(schema: object, text = JSON.stringify(schema)): avro.Type {
  let t = compiled.get(text);
  if (!t) compiled.set(text, (t = avro.Type.forSchema(schema as avro.Schema, { registry: { long: longType } as never, wrapUnions: 'auto' })));
  return t;
}

/** Encode records into a complete container file (deflate, one block per ~1000 records). */
export function writeAvroFile(schema: object, records: unknown[], meta: Record<string, string>): Uint8Array {
  const text = JSON.stringify(schema);
  const type = avroType(schema, text);
  const metadata: Record<string, Buffer> = { 'avro.schema': Buffer.from(text), 'avro.codec': Buffer.from('deflate') };
  for (const [k, v] of Object.entries(meta)) metadata[k] = Buffer.from(v);
  const sync = crypto.randomBytes(16);
  const parts: Buffer[] = [MAGIC, metaType.toBuffer(metadata), sync];
  const BLOCK = 1000;
  for (let i = 0; i < records.length; i += BLOCK) {
    const chunk = records.slice(i, i + BLOCK);
    const raw = Buffer.concat(chunk.map((r) => type.toBuffer(r)));
    const data = zlib.deflateRawSync(raw);
    parts.push(plainLong.toBuffer(chunk.length), plainLong.toBuffer(data.length), data, sync);
  }
  return new Uint8Array(Buffer.concat(parts));
}

export interface AvroFile<T = Record<string, unknown>> {
  meta: Record<string, string>;
  schema: Record<string, unknown>;
  records: T[];
}

/** Decode a container file; `what` names the file in errors. */
export function readAvroFile<T = Record<string, unknown>>(bytes: Uint8Array, what: string): AvroFile<T> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 4 || !buf.subarray(0, 4).equals(MAGIC)) throw new AppError('fatal', `lake: ${what} is not an Avro file (bad magic)`);
  try {
    const { value: rawMeta, offset: afterMeta } = metaType.decode(buf, 4) as { value: Record<string, Buffer>; offset: number };
    if (afterMeta < 0) throw new Error('truncated header');
    const meta: Record<string, string> = {};
    for (const [k, v] of Object.entries(rawMeta)) meta[k] = v.toString('utf8');
    const schema = JSON.parse(meta['avro.schema']);
    const codec = meta['avro.codec'] ?? 'null';
    const type = avroType(schema, meta['avro.schema']);
    const sync = buf.subarray(afterMeta, afterMeta + 16);
    let pos = afterMeta + 16;
    const records: T[] = [];
    while (pos < buf.length) {
      const c = plainLong.decode(buf, pos) as { value: number; offset: number };
      const s = plainLong.decode(buf, c.offset) as { value: number; offset: number };
      if (c.offset < 0 || s.offset < 0) throw new Error('truncated block header');
      const blockEnd = s.offset + s.value;
      let data = buf.subarray(s.offset, blockEnd);
      if (codec === 'deflate') data = zlib.inflateRawSync(data);
      else if (codec !== 'null') throw new Error(`unsupported Avro codec ${codec}`);
      let p = 0;
      for (let i = 0; i < c.value; i++) {
        const r = type.decode(data, p) as { value: T; offset: number };
        if (r.offset < 0) throw new Error('truncated record');
        records.push(r.value);
        p = r.offset;
      }
      if (!buf.subarray(blockEnd, blockEnd + 16).equals(sync)) throw new Error('sync marker mismatch');
      pos = blockEnd + 16;
    }
    return { meta, schema, records };
  } catch (e) {
    throw new AppError('fatal', `lake: corrupt Avro file ${what}: ${(e as Error).message}`, { cause: e });
  }
}
