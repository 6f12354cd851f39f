import { Worker } from 'node:worker_threads';
import os from 'node:os';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import { projectRoot } from '../config/project-root';
import { AppError } from '../errors';
import { giveBuffer } from '../cache/array-buffers';
import { deltaColumns } from './delta-columns';
import { writerProperties, type WriterPropertiesOptions } from './parquet-writer-properties.mjs';

/**
 * A small pool of worker threads encoding Parquet (parquet-wasm), so the thread
 * that produces Arrow rows (decoding a source, feeding the lake's writer) and
 * Parquet encoding use every core. A file goes to one worker whole (`write`: an
 * Arrow IPC stream in, a Parquet file out), batch by batch as it is extracted
 * (`stream`), or as bytes handed back (`encode`: the lake's data files).
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
/** A staged file is streamed to an encoder (`ParquetEncoderPool.stream`) once it holds more rows than this: smaller ones are encoded inline. */
export const STREAM_MIN_ROWS = INLINE_MAX_ROWS;
/** Arrow IPC bytes queued for the encoder workers before staging writers wait. */
const QUEUE_MAX_BYTES = 192 * 1024 * 1024;
/** Arrow IPC bytes of `encode`'s pieces queued before the next piece waits: two or three pieces. */
const ENCODE_QUEUE_BYTES = 32 * 1024 * 1024;
/** A file handed back in chunks, joined (once, here: see the worker's `done`). */
function joinParts(parts: Uint8Array[], bytes: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const c of parts) { out.set(c, at); at += c.byteLength; }
  return out;
}
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

/**
 * Batches as one IPC stream message for a worker. The batches' own buffers move to the worker
 * (transferred, not copied): they are this message's alone and dropped after it is sent. Small
 * buffers are cloned instead (cheap, and never Node's shared Buffer pool).
 */
function ipcMessage(batches: arrow.RecordBatch[]): { chunks: Uint8Array[]; bytes: number; transfer: ArrayBuffer[] } {
  const { chunks, bytes } = ipcChunks(batches);
  const transfer = new Set<ArrayBuffer>();
  for (const c of chunks) if (c.buffer instanceof ArrayBuffer && c.buffer.byteLength >= TRANSFER_MIN) transfer.add(c.buffer);
  return { chunks, bytes, transfer: [...transfer] };
}

/** A Parquet file being encoded batch by batch (`ParquetEncoderPool.stream`). */
export interface EncodingStream {
  /** Queue rows for the file (their buffers move to the encoder: the batches are unusable after). */
  add(batches: arrow.RecordBatch[]): void;
  /** Close the file; resolves with its size once written. */
  finish(): Promise<number>;
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

/** A worker's failure to read a Parquet file (`ParquetEncoderPool.read`), with the stage it failed at. */
export class WorkerReadError extends Error {
  constructor(readonly stage: 'open' | 'parse' | 'read' | 'worker', message: string, readonly code?: string) { super(message); }
}

/** A file being read by a worker: its decoded batches (IPC) as they arrive. */
interface PendingRead {
  slot: { w: Worker; busy: number };
  parts: Uint8Array[];
  done: boolean;
  error: Error | null;
  /** The reader stopped early: what still comes is dropped. */
  abandoned: boolean;
  wake: (() => void) | null;
}

export class ParquetEncoderPool {
  private workers: { w: Worker; busy: number }[] = [];
  private reads = new Map<number, PendingRead>();
  /** Files read by a worker (`read`) since the pool was made. */
  readsServed = 0;
  private pending = new Map<number, { resolve: (n: number, data?: Uint8Array) => void; reject: (e: Error) => void; bytes: number }>();
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
      const w = new Worker(path.join(projectRoot(), 'lib/lake/parquet-worker.mjs'));
      w.on('message', (m: { id: number; ok: boolean; bytes?: number; parts?: Uint8Array[]; error?: string; taken?: number; buffers?: ArrayBuffer[]; part?: Uint8Array; done?: boolean; stage?: WorkerReadError['stage']; code?: string }) => {
        if (m.taken !== undefined) { // a streamed file's batch went into the encoder (its buffers come back for reuse)
          this.release(m.taken);
          for (const b of m.buffers ?? []) giveBuffer(b);
          return;
        }
        const r = this.reads.get(m.id);
        if (r) { this.onRead(m.id, r, m); return; }
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        const slot = this.workers.find((x) => x.w === w);
        if (slot && --slot.busy === 0) slot.w.unref();
        this.release(p.bytes);
        if (m.ok) p.resolve(m.bytes ?? 0, m.parts && joinParts(m.parts, m.bytes ?? 0));
        else p.reject(new AppError('fatal', `parquet encoding failed: ${m.error}`));
      });
      // A dead thread fails what was queued (its files are its units' errors) and leaves the pool, so
      // a pool kept for a worker's life (lib/etl/unit-run.ts) does not hand later files to it.
      w.on('error', (e) => {
        this.workers = this.workers.filter((x) => x.w !== w);
        for (const [, p] of this.pending) p.reject(e); this.pending.clear(); this.queuedBytes = 0; for (const x of this.waiters.splice(0)) x();
        for (const [id, r] of this.reads) if (r.slot.w === w) { this.reads.delete(id); r.error = new WorkerReadError('worker', e.message); r.wake?.(); }
      });
      // A thread holds the process up only while it has files (see `take`): a shared pool
      // (lakeEncoders) is never closed, and a caller awaiting its file must not see the process
      // exit under it. (After the listeners: attaching a 'message' listener refs the thread again.)
      w.unref();
      this.workers.push({ w, busy: 0 });
    }
  }

  private release(bytes: number): void {
    this.queuedBytes -= bytes;
    for (const w of this.waiters.splice(0)) w();
  }

  /** A reply to `read`: a decoded batch queued for the reader, or the end (the worker is free of it). */
  private onRead(id: number, r: PendingRead, m: { ok: boolean; part?: Uint8Array; done?: boolean; stage?: WorkerReadError['stage']; code?: string; error?: string }): void {
    if (m.part) { if (!r.abandoned) r.parts.push(m.part); r.wake?.(); return; }
    this.reads.delete(id);
    if (--r.slot.busy === 0) r.slot.w.unref();
    if (m.ok) r.done = true; else r.error = new WorkerReadError(m.stage ?? 'read', m.error ?? 'unknown error', m.code);
    r.wake?.();
  }

  /**
   * Columns (by Parquet field id; every column when null) of the local Parquet file at `path`,
   * decoded by a worker and yielded here batch by batch, in file order. The worker decodes while
   * this thread works on what it already has (a merge probes one file's keys while the next is
   * decoded). Failures throw a WorkerReadError naming the stage. A reader that stops early leaves
   * the worker to finish the file; what it still sends is dropped.
   */
  async *read(path: string, fieldIds: number[] | null, batchSize: number): AsyncGenerator<arrow.RecordBatch> {
    const slot = this.take();
    const id = this.nextId++;
    const r: PendingRead = { slot, parts: [], done: false, error: null, abandoned: false, wake: null };
    this.reads.set(id, r);
    this.readsServed++;
    slot.w.postMessage({ type: 'read', id, path, fieldIds, batchSize });
    try {
      for (;;) {
        while (!r.parts.length && !r.done && !r.error) await new Promise<void>((wake) => { r.wake = wake; });
        r.wake = null;
        const part = r.parts.shift();
        if (part) { yield* arrow.tableFromIPC(part).batches; continue; }
        if (r.error) throw r.error;
        return;
      }
    } finally {
      r.abandoned = true;
      r.parts = [];
    }
  }

  /** Whether a worker has been started. */
  get started(): boolean {
    return this.workers.length > 0;
  }

  /** Whether a started worker has nothing to do now: work handed over starts at once, with no thread to start. */
  get idleStarted(): boolean {
    return this.workers.some((x) => x.busy === 0);
  }

  /**
   * The staged files' writer properties (`write`, `stream`), with the integer-like columns of
   * `schema` written DELTA_BINARY_PACKED as the lake's own files are (the staged files become data
   * files as they are): on bench/etl.ts-like rows a file encoded ~20% faster and came out ~40% smaller.
   */
  private settings(schema?: arrow.Schema): { settings: WriterPropertiesOptions } {
    return { settings: { compression: this.opts.compression ?? 'snappy', dictionary: this.opts.dictionary, rowGroupRows: ROW_GROUP_ROWS, ...(schema ? { deltaColumns: deltaColumns(schema) } : {}) } };
  }

  /** The least busy worker, counted busy with one more file. */
  private take(): { w: Worker; busy: number } {
    this.start();
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    if (slot.busy++ === 0) slot.w.ref();
    return slot;
  }

  /** Encode batches into a Parquet file at `path`; resolves with the file size. Small files are encoded inline. */
  write(path: string, batches: arrow.RecordBatch[]): Promise<number> {
    const rows = batches.reduce((a, b) => a + b.numRows, 0);
    if (rows <= INLINE_MAX_ROWS) return this.writeInline(path, batches);
    const slot = this.take();
    const { chunks, bytes, transfer } = ipcMessage(batches);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, bytes });
      this.queuedBytes += bytes;
      slot.w.postMessage({ id, path, chunks, bytes, ...this.settings(batches[0]?.schema) }, transfer);
    });
  }

  /**
   * A Parquet file at `path` written batch by batch: each batch is encoded by a worker as it
   * is added (the file's row group grows there), so encoding overlaps the extraction of the
   * next rows. `finish()` resolves with the file size. For files of more than `STREAM_MIN_ROWS`.
   */
  stream(path: string): EncodingStream {
    const slot = this.take();
    const id = this.nextId++;
    const done = new Promise<number>((resolve, reject) => { this.pending.set(id, { resolve, reject, bytes: 0 }); });
    done.catch(() => {}); // a failure before finish() is not unhandled: finish() returns it
    // `recycle`: the batches' buffers come back once encoded (the staged rows' builders reuse them)
    slot.w.postMessage({ type: 'open', id, path, recycle: true, ...this.settings() });
    let first = true;
    return {
      add: (batches) => {
        if (!this.pending.has(id) || !batches.length) return; // failed already: finish() rejects with its error
        const { chunks, bytes, transfer } = ipcMessage(batches);
        this.queuedBytes += bytes;
        // the file's schema is known with its first rows: the worker starts the file with them
        const delta = first ? { deltaColumns: deltaColumns(batches[0].schema) } : {};
        first = false;
        slot.w.postMessage({ type: 'batch', id, chunks, bytes, ...delta }, transfer);
      },
      finish: () => {
        if (this.pending.has(id)) slot.w.postMessage({ type: 'close', id });
        return done;
      },
    };
  }

  /**
   * Encode batches into a Parquet file handed back as bytes, with the caller's writer properties.
   * Each piece of at most `pieceRows` rows is copied into an IPC buffer of its own, which moves to
   * the worker (the batches' buffers may be shared with the caller: they are not transferred); the
   * pieces go out as the queue makes room (`room`), so a file's copy is never all queued at once.
   * `batches` is consumed: the array is emptied as its rows go out, so a large file's rows are
   * released while it is encoded instead of after.
   */
  async encode(schema: arrow.Schema, batches: arrow.RecordBatch[], settings: WriterPropertiesOptions, pieceRows: number): Promise<Uint8Array> {
    const slot = this.take();
    const id = this.nextId++;
    let data: Uint8Array | undefined;
    const done = new Promise<number>((resolve, reject) => { this.pending.set(id, { resolve: (n, d) => { data = d; resolve(n); }, reject, bytes: 0 }); });
    done.catch(() => {}); // a failure while pieces are still going out is awaited below
    slot.w.postMessage({ type: 'open', id, settings });
    for (let b = batches.shift(); b; b = batches.shift()) {
      for (let at = 0; at < b.numRows && this.pending.has(id); at += pieceRows) {
        await this.room(ENCODE_QUEUE_BYTES);
        const ipc = arrow.tableToIPC(new arrow.Table(schema, [b.slice(at, Math.min(b.numRows, at + pieceRows))]), 'stream');
        this.queuedBytes += ipc.byteLength;
        slot.w.postMessage({ type: 'batch', id, chunks: [ipc], bytes: ipc.byteLength }, ipc.byteOffset === 0 && ipc.byteLength === ipc.buffer.byteLength ? [ipc.buffer as ArrayBuffer] : []);
      }
    }
    if (this.pending.has(id)) slot.w.postMessage({ type: 'close', id });
    await done;
    if (!data) throw new AppError('internal', 'parquet encoding returned no bytes');
    return data;
  }

  private async writeInline(path: string, batches: arrow.RecordBatch[]): Promise<number> {
    const pw = await import('parquet-wasm/node');
    const props = writerProperties(pw, this.settings(batches[0]?.schema).settings);
    let bytes: Uint8Array;
    try {
      bytes = pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(new arrow.Table(batches), 'stream')), props);
    } catch (e) {
      throw new AppError('fatal', `parquet encoding failed: ${(e as Error).message}`, { cause: e });
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

  /** Whether a worker has no file now (or one is still to start): a file handed over now starts at once. */
  get idle(): boolean {
    return this.workers.length < Math.max(1, this.size) || this.workers.some((x) => x.busy === 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((x) => x.w.terminate()));
    this.workers = [];
  }
}

let shared: ParquetEncoderPool | undefined;
/**
 * The process's pool for the lake's data files: one worker per core beside the thread feeding the
 * writer, at least one and at most three. Each holds a wasm heap of its own that never shrinks: on
 * two cores a second worker made the lake bench's 5M-row append ~25% faster and raised its peak RSS
 * from ~735 to ~830–860 MiB, past its 0.75 GiB goal. The workers start with the first large file and never keep
 * the process up.
 */
export function lakeEncoders(): ParquetEncoderPool {
  return (shared ??= new ParquetEncoderPool(Math.max(1, Math.min(3, os.availableParallelism() - 1))));
}
