/**
 * parquet-wasm reads a Blob from inside WebAssembly, and a read that rejects
 * there (an object store's 503, a dropped connection, once the SDK's own
 * retries are spent) panics the module — `RuntimeError: unreachable`, thrown
 * where no caller catches it — and leaves the read's promise unsettled: the
 * operation hangs instead of failing. So the Blob handed to parquet-wasm never
 * rejects: a failed read is tried again (0.1 s doubling, 5 tries; a missing
 * object is not retried), and one that still fails returns zeros — which
 * parquet-wasm refuses cleanly — while the real error is kept for the caller
 * to throw instead (`failure.error`).
 */
export class GuardedBlob extends Blob {
  constructor(private readonly inner: Blob, readonly failure: { error?: unknown } = {}, private readonly tries = 5) {
    super([]);
  }
  override get size(): number { return this.inner.size; }
  override get type(): string { return this.inner.type; }
  override slice(start?: number, end?: number, contentType?: string): Blob {
    return new GuardedBlob(this.inner.slice(start, end, contentType), this.failure, this.tries);
  }
  override async arrayBuffer(): Promise<ArrayBuffer> {
    for (let i = 1; ; i++) {
      // Once one read failed for good the file is lost for this reader: fail fast.
      if (this.failure.error) return new ArrayBuffer(this.size);
      try {
        return await this.inner.arrayBuffer();
      } catch (e) {
        if (i >= this.tries || (e as { code?: unknown }).code === 'ENOENT') {
          this.failure.error = e;
          return new ArrayBuffer(this.size);
        }
        await new Promise((r) => setTimeout(r, 100 * 2 ** (i - 1)));
      }
    }
  }
  override async bytes(): Promise<Uint8Array<ArrayBuffer>> { return new Uint8Array(await this.arrayBuffer()); }
  override async text(): Promise<string> { return new TextDecoder().decode(await this.arrayBuffer()); }
  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return new ReadableStream({ pull: async (c) => { c.enqueue(await this.bytes()); c.close(); } });
  }
}
