/**
 * JSON text of table metadata files, read and written without losing 64-bit integers.
 *
 * Iceberg snapshot ids are longs, and Java and pyiceberg draw them at random from the whole
 * positive range: most are above 2^53, where `JSON.parse` rounds them to the nearest double
 * (3051729675574597004 becomes 3051729675574597000) and a commit on top of such a table would
 * rewrite every old id. So the metadata file is parsed here, not by `JSON.parse`:
 *
 * - the snapshot-id fields (`snapshot-id` wherever it appears: snapshots, refs, snapshot-log,
 *   statistics; `parent-snapshot-id`, `current-snapshot-id`) are always bigints, so ids have one
 *   type in memory, compare with `===` and are typed `bigint` (types.ts) — TypeScript then flags
 *   any code that would turn one into a number;
 * - any other integer a double cannot hold exactly (no field of the spec is expected to be one,
 *   but a file is kept exact whatever it carries) is a bigint too; every other number is a number.
 *
 * `stringifyJson` writes bigints as bare digits. Both exist because Node 20 has neither
 * `JSON.parse` source access nor `JSON.rawJSON`; the parser is a plain recursive descent over the
 * JSON grammar (RFC 8259), used for metadata files only (a few hundred KB at most).
 */

/** Keys whose integer values are snapshot ids: always read as bigint. */
const ID_KEYS = new Set(['snapshot-id', 'parent-snapshot-id', 'current-snapshot-id']);

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const WS = /[ \t\n\r]*/y;

/** Parse JSON text; integers of id fields, and integers a double cannot hold, become bigints. */
export function parseMetadataJson(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => { throw new SyntaxError(`${what} at position ${i}`); };
  const ws = () => { WS.lastIndex = i; WS.exec(text); i = WS.lastIndex; };
  const str = (): string => {
    // JSON.parse decodes one string literal exactly (escapes, surrogates); find its end first.
    const start = i++;
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c)) fail('unterminated string');
      if (c === 0x22) break;
      i += c === 0x5c ? 2 : 1;
    }
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (key: string | null): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a property name');
        const k = str();
        ws();
        if (text[i++] !== ':') fail('expected ":"');
        // Own-property assignment, as JSON.parse does (a "__proto__" key is data, not a prototype).
        Object.defineProperty(o, k, { value: value(k), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return o; }
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const a: unknown[] = [];
      ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        // elements of an id-keyed array (none in the spec today) are ids too
        a.push(value(key));
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return a; }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail(`unexpected ${c === undefined ? 'end of input' : `character ${JSON.stringify(c)}`}`);
    i = NUMBER.lastIndex;
    const isInt = m[1] === undefined && m[2] === undefined;
    if (isInt && (key !== null && ID_KEYS.has(key) || !Number.isSafeInteger(Number(m[0])))) return BigInt(m[0]);
    return Number(m[0]);
  };
  const v = value(null);
  ws();
  if (i < text.length) fail('unexpected text after the JSON value');
  return v;
}

/**
 * `JSON.stringify(value, null, indent)`, with bigints written as their digits. Like it, drops
 * undefined and function members of objects, writes them as null in arrays, writes non-finite
 * numbers as null and honours `toJSON` (Dates).
 */
export function stringifyJson(value: unknown, indent = 2): string {
  const pad = ' '.repeat(indent);
  const write = (v: unknown, at: string): string | undefined => {
    if (v && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(): unknown }).toJSON();
    switch (typeof v) {
      case 'bigint': return v.toString();
      case 'number': return Number.isFinite(v) ? String(v) : 'null';
      case 'string': return JSON.stringify(v);
      case 'boolean': return String(v);
      case 'undefined': case 'function': case 'symbol': return undefined;
    }
    if (v === null) return 'null';
    const inner = at + pad;
    const sep = indent ? `,\n${inner}` : ',';
    const open = indent ? `\n${inner}` : '', close = indent ? `\n${at}` : '';
    if (Array.isArray(v)) {
      if (!v.length) return '[]';
      return `[${open}${v.map((x) => write(x, inner) ?? 'null').join(sep)}${close}]`;
    }
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v as object)) {
      const s = write(x, inner);
      if (s !== undefined) parts.push(`${JSON.stringify(k)}:${indent ? ' ' : ''}${s}`);
    }
    return parts.length ? `{${open}${parts.join(sep)}${close}}` : '{}';
  };
  return write(value, '') ?? 'null';
}
