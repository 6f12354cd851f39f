import { AppError } from '../errors';
import { copyOut, type PgQueryable } from './pg-copy-out';

/**
 * The first column of the first row of a query, read raw through
 * `COPY (…) TO STDOUT (FORMAT binary)`: for a `bytea` that is its bytes as
 * stored. Why COPY: node-postgres decodes every value of a result row as a
 * UTF-8 string, so a bytea comes back as hex (or base64, if the query encodes
 * it) text — for a packed key list of a million keys, 16 MB of text made by
 * the server, held as a JavaScript string and decoded again here. COPY's binary
 * format hands over the value's send form untouched (for bytea: the bytes).
 * Null when the query returns no row or a NULL.
 */
export async function firstValueBytes(client: PgQueryable, sql: string, signal?: AbortSignal): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  for await (const c of copyOut(client, `COPY (${sql}) TO STDOUT (FORMAT binary)`, { signal })) chunks.push(c);
  return firstField(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

/** PGCOPY\n\377\r\n\0: the binary format's signature. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** The first field of the first tuple of a binary COPY stream (header, tuples, trailer). */
export function firstField(b: Buffer): Buffer | null {
  const bad = (why: string) => new AppError('fatal', `sources: binary COPY: ${why}`);
  if (b.length < 19 || !b.subarray(0, 11).equals(SIGNATURE)) throw bad('no PGCOPY signature');
  let o = 15 + 4 + b.readUInt32BE(15); // flags, header extension length, the extension
  if (o + 2 > b.length) throw bad('truncated after the header');
  const fields = b.readInt16BE(o);
  if (fields === -1) return null; // the trailer: no row
  if (fields < 1) throw bad(`a row of ${fields} fields`);
  o += 2;
  const len = b.readInt32BE(o);
  if (len === -1) return null;
  if (o + 4 + len > b.length) throw bad('truncated value');
  return b.subarray(o + 4, o + 4 + len);
}
