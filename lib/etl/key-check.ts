import * as arrow from 'apache-arrow';
import { takeBatch, valueAt } from '../lake';
import { AppError } from '../errors';
import { IntKeyBits } from './int-key-bits';

/**
 * Duplicate unique_key values in one unit's extract, found before anything is
 * committed. A merge keeps one row per key (the last), and a full replace
 * adopts every row, so a key that is not unique either loses rows silently or
 * leaves the lake with two rows a later merge replaces by one.
 *
 * The common key, one signed integer column without NULLs, is marked in a
 * bitmap over the keys' span while the unit streams, a repeat noted as it
 * comes (int-key-bits.ts: a bit a key); keys too sparse for that are collected
 * as numbers (8 bytes a row, written in order) and checked when the suspects
 * are asked for, by a sort — exact, and a few nanoseconds a row where hashing
 * each row into a table of millions cost a cache miss a row (~0.3 µs: ~0.9 s
 * of an INITIAL's 2.8M rows in bench/etl.ts's profile).
 * Any other key (or an integer beyond ±2^53) is hashed to 64 bits into an
 * open-addressing table of typed arrays (11–21 bytes per row, no object or
 * string per row). Either way a suspect is named by its hashes: rows whose
 * hash was seen before (a collision of 64-bit hashes is possible, if
 * unlikely), and duplicated integers by theirs. When there are any, the
 * staged rows are read back once and the suspects compared by their exact
 * values. A unit with unique keys pays the collecting or hashing only.
 */
export class KeyTracker {
  private cap = 1 << 12;
  /** Interleaved (h1, h2) per slot; h1 is never 0, so 0 marks an empty slot (one cache line per probe). */
  private slots = new Int32Array(2 * this.cap);
  private size = 0;
  /** Hashes (`h1:h2`) seen more than once. */
  private readonly found = new Set<string>();
  /** The integer road, while the keys are dense: their bits (null: not, or no longer, these bits). */
  private bits: IntKeyBits | null = new IntKeyBits();
  /** The integer road past that: the keys so far as numbers (null: not, or no longer, this road), how many, how many checked. */
  private ints: Float64Array | null = null;
  private nInts = 0;
  private checked = 0;
  /** 32-bit words per integer key (1: int32, 2: int64). */
  private intWords = 0;

  constructor(readonly keyIdx: number[]) {}

  /** The key columns' positions in `schema` (names compared without regard to case); throws naming a missing one. */
  static forSchema(schema: arrow.Schema, keys: string[], where: string): KeyTracker {
    const idx = keys.map((k) => {
      const i = schema.fields.findIndex((f) => f.name.toUpperCase() === k.toUpperCase());
      if (i < 0) throw new AppError('validation', `etl: ${where}: unique_key column ${k} is not a column of the extract (columns: ${schema.fields.map((f) => f.name).join(', ')})`);
      return i;
    });
    return new KeyTracker(idx);
  }

  /** Hashes (`h1:h2`) of the keys seen more than once (or colliding): what `exactDuplicates` looks for. */
  get suspects(): Set<string> {
    for (const k of this.bits?.repeated ?? []) { hashInt(k, this.intWords); this.found.add(`${H[0]}:${H[1]}`); }
    if (this.ints && this.checked !== this.nInts) {
      for (const k of duplicatesOf(this.ints.subarray(0, this.nInts))) { hashInt(k, this.intWords); this.found.add(`${H[0]}:${H[1]}`); }
      this.checked = this.nInts;
    }
    return this.found;
  }

  add(batch: arrow.RecordBatch): void {
    const cols = this.keyIdx.map((c) => batch.data.children[c]);
    const views = cols.map(columnBytes);
    const one = views[0];
    if (this.bits || this.ints) {
      const w = views.length === 1 && one.kind === 'words' && !one.nulls ? intWordsOf(cols[0]) : 0;
      if (w && (!this.intWords || w === this.intWords) && this.addInts((one as { words: Int32Array }).words, w, batch.numRows)) return;
      this.leaveInts();
    }
    if (views.length === 1 && one.kind === 'words' && !one.nulls) { this.addWords(one.words, one.width, batch.numRows); return; }
    for (let i = 0; i < batch.numRows; i++) {
      hashRow(cols, views, i);
      this.insert(H[0], H[1]);
    }
  }

  /**
   * The integer road: a batch's keys marked in the bits, or appended as numbers once the keys are
   * too sparse for bits; false (nothing kept of the batch) when one is beyond ±2^53.
   */
  private addInts(words: Int32Array, width: number, rows: number): boolean {
    if (width === 2) for (let i = 0; i < rows; i++) { const hi = words[2 * i + 1]; if (hi > 0x1fffff || hi < -0x200000) return false; } // beyond ±2^53: not exact as a number
    this.intWords = width;
    const bits = this.bits;
    let from = 0;
    if (bits) {
      if (width === 1) { for (; from < rows; from++) if (!bits.add(words[from])) break; }
      else for (; from < rows; from++) if (!bits.add(words[2 * from + 1] * 4294967296 + (words[2 * from] >>> 0))) break;
      if (from === rows) return true;
      // too sparse for bits: the keys so far as numbers, the rest of the batch appended to them
      this.bits = null;
      this.ints = bits.keys();
      this.nInts = this.ints.length;
      for (const k of bits.repeated) { hashInt(k, width); this.found.add(`${H[0]}:${H[1]}`); }
    }
    this.appendInts(words, width, from, rows);
    return true;
  }

  /** Rows [from, rows) of a batch's integer keys appended as numbers (already checked within ±2^53). */
  private appendInts(words: Int32Array, width: number, from: number, rows: number): void {
    if (this.nInts + rows - from > this.ints!.length) {
      const g = new Float64Array(Math.max(this.ints!.length * 2, this.nInts + rows));
      g.set(this.ints!.subarray(0, this.nInts));
      this.ints = g;
    }
    const out = this.ints!;
    let n = this.nInts;
    if (width === 1) for (let i = from; i < rows; i++) out[n++] = words[i];
    else for (let i = from; i < rows; i++) out[n++] = words[2 * i + 1] * 4294967296 + (words[2 * i] >>> 0);
    this.nInts = n;
  }

  /** Off the integer road: the keys so far go into the hash table (a repeated one twice), as the rows after them will. */
  private leaveInts(): void {
    const keys = this.bits ? this.bits.keys() : this.ints!.subarray(0, this.nInts);
    this.bits = null;
    this.ints = null;
    for (let i = 0; i < keys.length; i++) { hashInt(keys[i], this.intWords); this.insert(H[0], H[1]); }
  }

  /**
   * The common key (one integer column, no NULL): the same two hashes as `hashRow` (which
   * `exactDuplicates` recomputes), computed in locals — `hashRow`'s general loop and its calls
   * per word cost more than the table insert here.
   */
  private addWords(words: Int32Array, width: number, rows: number): void {
    for (let i = 0; i < rows; i++) {
      let a = 0x811c9dc5 | 0, b = 0x9747b28c | 0;
      for (let k = -1; k < width; k++) {
        const x = k < 0 ? 0xfe : words[i * width + k]; // the column separator, then the words
        let h = Math.imul(x, 0xcc9e2d51); h = (h << 15) | (h >>> 17); h = Math.imul(h, 0x1b873593);
        a ^= h; a = (a << 13) | (a >>> 19); a = (Math.imul(a, 5) + 0xe6546b64) | 0;
        let j = Math.imul(x, 0x85ebca6b); j = (j << 11) | (j >>> 21); j = Math.imul(j, 0xc2b2ae35);
        b ^= j; b = (b << 17) | (b >>> 15); b = (Math.imul(b, 9) + 0x38b34ae5) | 0;
      }
      a ^= a >>> 16; a = Math.imul(a, 0x85ebca6b); a ^= a >>> 13; a = Math.imul(a, 0xc2b2ae35); a ^= a >>> 16;
      b ^= b >>> 15; b = Math.imul(b, 0x2c1b3c6d); b ^= b >>> 12; b = Math.imul(b, 0x297a2d39); b ^= b >>> 15;
      this.insert(a || 1, b);
    }
  }

  private insert(a: number, b: number): void {
    if ((this.size + 1) * 4 > this.cap * 3) this.grow(); // at most 3/4 full: 11–21 bytes per row
    const mask = this.cap - 1;
    const sl = this.slots;
    let s = a & mask;
    for (;;) {
      const x = sl[2 * s];
      if (x === 0) break;
      if (x === a && sl[2 * s + 1] === b) { this.found.add(`${a}:${b}`); return; }
      s = (s + 1) & mask;
    }
    sl[2 * s] = a; sl[2 * s + 1] = b; this.size++;
  }

  private grow(): void {
    const old = this.slots;
    this.cap *= 2;
    this.slots = new Int32Array(2 * this.cap);
    const mask = this.cap - 1;
    for (let i = 0; i < old.length; i += 2) {
      const a = old[i];
      if (a === 0) continue;
      let s = a & mask;
      while (this.slots[2 * s] !== 0) s = (s + 1) & mask;
      this.slots[2 * s] = a; this.slots[2 * s + 1] = old[i + 1];
    }
  }
}

/** 32-bit words of a signed 32- or 64-bit integer column (1 or 2), else 0 (not the integer road). */
function intWordsOf(d: arrow.Data): number {
  if (!arrow.DataType.isInt(d.type) || !d.type.isSigned) return 0;
  return d.type.bitWidth === 32 ? 1 : d.type.bitWidth === 64 ? 2 : 0;
}

/** The distinct values occurring more than once in `keys`: a bitmap over their span when it is dense enough (≤ 64 bits a key), else a sort. */
export function duplicatesOf(keys: Float64Array): number[] {
  const n = keys.length;
  const out: number[] = [];
  if (n < 2) return out;
  let min = Infinity, max = -Infinity;
  for (let i = 0; i < n; i++) { const k = keys[i]; if (k < min) min = k; if (k > max) max = k; }
  const span = max - min + 1;
  if (span <= 2 ** 31 && span <= 64 * n) {
    const seen = new Uint8Array(Math.ceil(span / 8)), twice = new Uint8Array(seen.length);
    for (let i = 0; i < n; i++) {
      const o = keys[i] - min, at = o >>> 3, bit = 1 << (o & 7);
      if (!(seen[at] & bit)) { seen[at] |= bit; continue; }
      if (!(twice[at] & bit)) { twice[at] |= bit; out.push(keys[i]); }
    }
    return out;
  }
  const sorted = keys.slice().sort();
  for (let i = 1; i < n; i++) if (sorted[i] === sorted[i - 1] && (i < 2 || sorted[i - 2] !== sorted[i])) out.push(sorted[i]);
  return out;
}

/** `hashRow`'s hashes of one integer key (its `width` little-endian 32-bit words) into H. */
function hashInt(k: number, width: number): void {
  A = 0x811c9dc5 | 0; B = 0x9747b28c | 0;
  mix(0xfe);
  if (width === 1) mix(k | 0);
  else { const hi = Math.floor(k / 4294967296); mix((k - hi * 4294967296) | 0); mix(hi | 0); }
  finish();
}

type ColumnBytes = { nulls?: boolean } & ({ kind: 'var'; offsets: ArrayLike<number | bigint>; bytes: Uint8Array }
  | { kind: 'words'; words: Int32Array; width: number } | { kind: 'fixed'; bytes: Uint8Array; width: number } | { kind: 'other' });

/** How to read one key column's values in place (once per batch), and whether it has nulls to test. */
function columnBytes(d: arrow.Data): ColumnBytes {
  return { ...valueBytes(d), nulls: d.nullCount > 0 };
}

function valueBytes(d: arrow.Data): ColumnBytes {
  const v = d.values as unknown as ArrayBufferView & { BYTES_PER_ELEMENT?: number } | undefined;
  if (!v || !ArrayBuffer.isView(v)) return { kind: 'other' };
  const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (d.valueOffsets) return { kind: 'var', offsets: d.valueOffsets as unknown as ArrayLike<number | bigint>, bytes };
  // bit-packed booleans, and dictionaries (whose indices mean different values in different batches): by value
  if (arrow.DataType.isBool(d.type) || arrow.DataType.isDictionary(d.type)) return { kind: 'other' };
  // arrow-js keeps fixed-width `values` offset to the Data's first element; decimals and
  // fixed-size binaries span `stride` elements per value
  const width = (v.BYTES_PER_ELEMENT ?? 1) * (d.stride || 1);
  // ints, dates, timestamps, decimals: hashed a 32-bit word at a time
  if (width % 4 === 0 && v.byteOffset % 4 === 0) return { kind: 'words', words: new Int32Array(v.buffer, v.byteOffset, v.byteLength >> 2), width: width >> 2 };
  return { kind: 'fixed', bytes, width };
}

const H = new Int32Array(2);
let A = 0, B = 0;

/** One 32-bit word (or byte) into both hashes: murmur3's block step, with different seeds and rotations. */
function mix(x: number): void {
  let k = Math.imul(x, 0xcc9e2d51); k = (k << 15) | (k >>> 17); k = Math.imul(k, 0x1b873593);
  A ^= k; A = (A << 13) | (A >>> 19); A = (Math.imul(A, 5) + 0xe6546b64) | 0;
  let j = Math.imul(x, 0x85ebca6b); j = (j << 11) | (j >>> 21); j = Math.imul(j, 0xc2b2ae35);
  B ^= j; B = (B << 17) | (B >>> 15); B = (Math.imul(B, 9) + 0x38b34ae5) | 0;
}

/** Two 32-bit hashes (murmur3-style, different seeds and constants) of row `i`'s key into H; allocates nothing for fixed- and variable-width keys. */
function hashRow(cols: arrow.Data[], views: ColumnBytes[], i: number): void {
  A = 0x811c9dc5 | 0; B = 0x9747b28c | 0;
  for (let c = 0; c < cols.length; c++) {
    const d = cols[c];
    mix(0xfe); // column separator
    const v = views[c];
    if (v.nulls && !d.getValid(i)) { mix(0xff); mix(0x00); continue; }
    if (v.kind === 'var') {
      const lo = Number(v.offsets[i]), hi = Number(v.offsets[i + 1]);
      for (let k = lo; k < hi; k++) mix(v.bytes[k]);
      mix((hi - lo) & 0xff); mix(((hi - lo) >>> 8) & 0xff);
    } else if (v.kind === 'words') {
      const lo = i * v.width;
      for (let k = lo; k < lo + v.width; k++) mix(v.words[k]);
    } else if (v.kind === 'fixed') {
      const lo = i * v.width;
      for (let k = lo; k < lo + v.width; k++) mix(v.bytes[k]);
    } else {
      const s = String(valueAt(d, i));
      for (let k = 0; k < s.length; k++) { const ch = s.charCodeAt(k); mix(ch & 0xff); mix(ch >>> 8); }
    }
  }
  finish();
}

/** The two hashes' final avalanche, into H (h1 never 0). */
function finish(): void {
  let a = A, b = B;
  a ^= a >>> 16; a = Math.imul(a, 0x85ebca6b); a ^= a >>> 13; a = Math.imul(a, 0xc2b2ae35); a ^= a >>> 16;
  b ^= b >>> 15; b = Math.imul(b, 0x2c1b3c6d); b ^= b >>> 12; b = Math.imul(b, 0x297a2d39); b ^= b >>> 15;
  H[0] = a || 1; H[1] = b;
}

/** A duplicated key: its values as text and where its rows are (file index, row within the file, in read order). */
export interface DuplicateKey { key: string; rows: { file: number; row: number; order: unknown }[] }

/**
 * Read the staged files back (one at a time, through `read`) and group the suspect rows by their exact key
 * values: the keys that really occur more than once. `order` is the value of
 * column `orderIdx` (the CDC column, for `dedupe: latest`) of each such row.
 */
export async function exactDuplicates(fileCount: number, read: (f: number) => Promise<arrow.RecordBatch[]>, tracker: KeyTracker, orderIdx: number | null): Promise<DuplicateKey[]> {
  const groups = new Map<string, DuplicateKey>();
  for (let f = 0; f < fileCount; f++) {
    let base = 0;
    for (const batch of await read(f)) {
      const cols = tracker.keyIdx.map((c) => batch.data.children[c]);
      const views = cols.map(columnBytes);
      for (let i = 0; i < batch.numRows; i++) {
        hashRow(cols, views, i);
        if (!tracker.suspects.has(`${H[0]}:${H[1]}`)) continue;
        const key = cols.map((d) => { const v = valueAt(d, i); return v === null ? 'NULL' : String(v); }).join(', ');
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { key, rows: [] }));
        g.rows.push({ file: f, row: base + i, order: orderIdx === null ? null : valueAt(batch.data.children[orderIdx], i) });
      }
      base += batch.numRows;
    }
  }
  return [...groups.values()].filter((g) => g.rows.length > 1);
}

/** The rows `dedupe: latest` drops: all but the one with the greatest `order` per key (the last read of equals; NULL is oldest). */
export function olderRows(dups: DuplicateKey[]): Map<number, Set<number>> {
  const drop = new Map<number, Set<number>>();
  for (const g of dups) {
    let best = g.rows[0];
    for (const r of g.rows.slice(1)) if (best.order === null || (r.order !== null && (r.order as number) >= (best.order as number))) best = r;
    for (const r of g.rows) {
      if (r === best) continue;
      let s = drop.get(r.file);
      if (!s) drop.set(r.file, (s = new Set()));
      s.add(r.row);
    }
  }
  return drop;
}

/** A file's batches without the rows in `drop` (row numbers over the whole file). */
export function withoutRows(batches: arrow.RecordBatch[], drop: Set<number>): arrow.RecordBatch[] {
  const out: arrow.RecordBatch[] = [];
  let base = 0;
  for (const b of batches) {
    const keep: number[] = [];
    for (let i = 0; i < b.numRows; i++) if (!drop.has(base + i)) keep.push(i);
    base += b.numRows;
    if (keep.length === b.numRows) out.push(b);
    else if (keep.length) out.push(takeBatch(b, keep));
  }
  return out;
}
