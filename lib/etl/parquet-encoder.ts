import { Worker } from 'node:worker_threads';
import fs from 'node:fs/promises';
import * as arrow from 'apache-arrow';
import { writerProperties } from '../lake';
import path from 'node:path';
import { projectRoot } from '../config/project-root';
import { AppError } from '../errors';

/**
 * A small pool of worker threads encoding Parquet (parquet-wasm), so Arrow
 * decoding of source rows and Parquet encoding use both cores. Each job is one
 * staged file: an Arrow IPC stream in, a Parquet file out.
 */
export interface EncodeOptions {
  /** (Default: snappy — ~30% faster than zstd here) */
  compression?: 'snappy' | 'zstd' | 'uncompressed' | 'lz4';
  /** Dictionary encoding. (Default: true) */
  dictionary?: boolean;
}

/** Rows per row group of a staged file (writer properties: lib/lake's `writerProperties`). */
const ROW_GROUP_ROWS = 1_048_576;
/** Files of at most this many rows are encoded on the calling thread (cheaper than a round trip to a worker). */
const INLINE_MAX_ROWS = 20_000;
/** Arrow IPC bytes queued for the encoder workers before staging writers wait. */
const QUEUE_MAX_BYTES = 192 * 1024 * 1024;
/**
 * Buffers at least this large are transferred to the encoder worker rather than copied: on this kind
 * of VM first-touching fresh memory costs ~3 ms per MiB (page faults), so joining a file's buffers
 * into a new IPC buffer here cost more than decoding its rows.
 */
const TRANSFER_MIN = 64 * 1024;

/** Arrow sink that keeps the stream's chunks (views on the batches' own buffers) instead of joining them. */
class ChunkSink extends arrow.AsyncByteQueue {
  readonly chunks: Uint8Array[] = [];
  bytes = 0;
  override write(value: Uint8Array): void {
    if (value.byteLength === 0) return;
    this.chunks.push(value);
    this.bytes += value.byteLength;
  }
}

/** Batches as Arrow IPC stream chunks (metadata, then views on the batches' buffers), uncopied. */
function ipcChunks(batches: arrow.RecordBatch[]): { chunks: Uint8Array[]; bytes: number } {
  const sink = new ChunkSink();
  const w = new arrow.RecordBatchStreamWriter();
  w.reset(sink as unknown as arrow.AsyncByteQueue<Uint8Array>);
  for (const b of batches) w.write(b);
  w.finish();
  return { chunks: sink.chunks, bytes: sink.bytes };
}

export class ParquetEncoderPool {
  private workers: { w: Worker; busy: number }[] = [];
  private pending = new Map<number, { resolve: (n: number) => void; reject: (e: Error) => void; bytes: number }>();
  private nextId = 1;
  /** Arrow IPC bytes handed to workers and not yet encoded. */
  private queuedBytes = 0;
  private waiters: (() => void)[] = [];

  /**
   * Workers start on the first large file: a run that stages only small files
   * (a typical INCREMENTAL) never pays a worker's start-up and wasm compile.
   */
  constructor(private readonly size = 1, private readonly opts: EncodeOptions = {}) {}

  private start(): void {
    // tops the pool up: a thread that died (see 'error' below) is replaced by the next large file
    for (let i = this.workers.length; i < Math.max(1, this.size); i++) {
      const w = new Worker(path.join(projectRoot(), 'lib/etl/parquet-worker.mjs'));
      w.unref();
      w.on('message', (m: { id: number; ok: boolean; bytes?: number; error?: string }) => {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        const slot = this.workers.find((x) => x.w === w);
        if (slot) slot.busy--;
        this.queuedBytes -= p.bytes;
        for (const w of this.waiters.splice(0)) w();
        if (m.ok) p.resolve(m.bytes ?? 0);
        else p.reject(new AppError('fatal', `etl: parquet encoding failed: ${m.error}`));
      });
      // A dead thread fails what was queued (its files are its units' errors) and leaves the pool, so
      // a pool kept for a worker's life (lib/etl/unit-run.ts) does not hand later files to it.
      w.on('error', (e) => {
        this.workers = this.workers.filter((x) => x.w !== w);
        for (const [, p] of this.pending) p.reject(e); this.pending.clear(); this.queuedBytes = 0; for (const x of this.waiters.splice(0)) x();
      });
      this.workers.push({ w, busy: 0 });
    }
  }

  /** Encode batches into a Parquet file at `path`; resolves with the file size. Small files are encoded inline. */
  write(path: string, batches: arrow.RecordBatch[]): Promise<number> {
    const rows = batches.reduce((a, b) => a + b.numRows, 0);
    if (rows <= INLINE_MAX_ROWS) return this.writeInline(path, batches);
    this.start();
    const { chunks, bytes } = ipcChunks(batches);
    // The batches' own buffers move to the worker (transferred, not copied): they are this
    // file's alone and dropped after this call. Small buffers are cloned instead (cheap, and
    // never Node's shared Buffer pool).
    const transfer = new Set<ArrayBuffer>();
    for (const c of chunks) if (c.buffer instanceof ArrayBuffer && c.buffer.byteLength >= TRANSFER_MIN) transfer.add(c.buffer);
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    slot.busy++;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, bytes });
      this.queuedBytes += bytes;
      slot.w.postMessage({ id, path, chunks, bytes, compression: this.opts.compression ?? 'snappy', dictionary: this.opts.dictionary, rowGroupRows: ROW_GROUP_ROWS }, [...transfer]);
    });
  }

  private async writeInline(path: string, batches: arrow.RecordBatch[]): Promise<number> {
    const pw = await import('parquet-wasm/node');
    const props = writerProperties(pw, { compression: this.opts.compression ?? 'snappy', dictionary: this.opts.dictionary, rowGroupRows: ROW_GROUP_ROWS });
    let bytes: Uint8Array;
    try {
      bytes = pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(new arrow.Table(batches), 'stream')), props);
    } catch (e) {
      throw new AppError('fatal', `etl: parquet encoding failed: ${(e as Error).message}`, { cause: e });
    }
    await fs.writeFile(path, bytes);
    return bytes.length;
  }

  /**
   * Resolves once the work queued for the workers is under `maxBytes` of Arrow
   * IPC: every table worker's staging shares the encoders, so without this the
   * queue (and memory) grows whenever extraction outpaces encoding.
   */
  async room(maxBytes = QUEUE_MAX_BYTES): Promise<void> {
    while (this.queuedBytes > maxBytes && this.pending.size) await new Promise<void>((r) => this.waiters.push(r));
  }

  get inFlight(): number { return this.pending.size; }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((x) => x.w.terminate()));
    this.workers = [];
  }
}

/** Read a staged Parquet file back as Arrow batches (for merges). */
export async function readParquetBatches(path: string, read?: (uri: string) => Promise<Uint8Array>): Promise<arrow.RecordBatch[]> {
  const pw = await import('parquet-wasm/node');
  const bytes = read && /^[a-z][a-z0-9+.-]*:\/\//.test(path) ? await read(path) : await fs.readFile(path);
  const t = arrow.tableFromIPC(pw.readParquet(new Uint8Array(bytes)).intoIPCStream());
  return t.batches;
}
