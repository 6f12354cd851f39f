// Plain JS so the Parquet worker thread (parquet-worker.mjs), which runs without a TypeScript
// loader, reads local files with it too; types in range-blob.d.mts.

/**
 * A Blob over a stored object that reads bytes only when asked: `slice()` is
 * free and `arrayBuffer()` of a slice is one ranged read (a ranged GET on S3,
 * a positional read of the file on disk), so parquet-wasm and hyparquet
 * (which duck-type `size`, `slice`, `arrayBuffer`) read a footer or a column
 * chunk without reading the object. It extends Blob so `instanceof Blob`
 * checks hold; the inherited internals (an empty Blob) are never used.
 *
 * Why not `fs.openAsBlob` for local files: Node 20 reads a file-backed Blob's
 * slice in 64 KiB chunks joined on the main thread — measured here, an 8 MB
 * column chunk took 15 ms of CPU against 4 ms for one positional read, and a
 * whole 64 MB file 141 ms against 53 — and a merge reads the key column of
 * every candidate file this way.
 */
export class RangeBlob extends Blob {
  #read; #start; #end; #mime;
  constructor(readRange, start, end, mime = '') {
    super([]);
    this.#read = readRange; this.#start = start; this.#end = end; this.#mime = mime;
  }
  get size() { return this.#end - this.#start; }
  get type() { return this.#mime; }
  slice(start = 0, end = this.size, contentType = '') {
    const n = this.size;
    const rel = (v) => (v < 0 ? Math.max(n + v, 0) : Math.min(v, n));
    const s = rel(start), e = Math.max(rel(end), s);
    return new RangeBlob(this.#read, this.#start + s, this.#start + e, contentType);
  }
  async arrayBuffer() {
    const b = await this.bytes();
    return b.buffer.byteLength === b.byteLength ? b.buffer : b.slice().buffer;
  }
  async bytes() {
    if (this.size === 0) return new Uint8Array(0);
    return await this.#read(this.#start, this.#end);
  }
  async text() { return new TextDecoder().decode(await this.bytes()); }
  stream() {
    return new ReadableStream({ pull: async (c) => { c.enqueue(await this.bytes()); c.close(); } });
  }
}

/**
 * Bytes [start, end) of an open file (`fs.promises` FileHandle), read into a buffer of their own:
 * every byte is read (one `read` may return short); a file cut under us comes back short.
 */
export async function readFileRange(fh, start, end) {
  const buf = Buffer.allocUnsafeSlow(end - start);
  let at = 0;
  while (at < buf.length) {
    const { bytesRead } = await fh.read(buf, at, buf.length - at, start + at);
    if (!bytesRead) break;
    at += bytesRead;
  }
  return new Uint8Array(buf.buffer, buf.byteOffset, at);
}
