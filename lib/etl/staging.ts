import fs from 'node:fs/promises';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import { STREAM_MIN_ROWS, type EncodingStream, type ParquetEncoderPool } from '../lake';

/**
 * Staged Parquet for one (table, branch) extraction: batches are grouped into
 * files of `rowsPerFile` rows (the last batch may overshoot) and encoded
 * off-thread — streamed batch by batch, or whole for a unit that may be held in
 * memory; at most `maxInFlight` closed files are being finished at once.
 * Files land in `<root>/<runId>/<table>/<branch>/part-NNNNN.parquet`; a
 * fanned-out unit on an object-store warehouse then uploads them (unit-upload.ts).
 */
export interface StagedFile {
  path: string;
  rows: number;
  bytes: number;
  /** The rows themselves when a small unit is held in memory instead of being written (see `MemoryHold`). */
  batches?: arrow.RecordBatch[];
}

/** The rows of a staged file: held, on disk, or (a fanned-out unit's on an object store) read through `read`. */
export async function stagedBatches(f: StagedFile, read?: (uri: string) => Promise<Uint8Array>): Promise<arrow.RecordBatch[]> {
  if (f.batches) return f.batches;
  const pw = await import('parquet-wasm/node');
  const bytes = read && /^[a-z][a-z0-9+.-]*:\/\//.test(f.path) ? await read(f.path) : await fs.readFile(f.path);
  return arrow.tableFromIPC(pw.readParquet(new Uint8Array(bytes)).intoIPCStream()).batches;
}

/** A staged file a fanned-out unit uploaded to the object store (see lib/etl/unit-upload.ts). */
export const isRemoteStaged = (f: StagedFile): boolean => /^s3a?:\/\//.test(f.path);

/**
 * Bytes of Arrow data a run may hold in memory instead of staging it. A
 * merge decodes what it loads, so a small unit (an INCREMENTAL's few changed
 * rows) written to Parquet and read back would pay an encode and a decode for
 * nothing; held here it goes straight to the merge. Bounded for the whole run,
 * so memory stays bounded by this budget, not by how many units are waiting.
 */
export class MemoryHold {
  constructor(private left: number) {}
  take(bytes: number): boolean {
    if (bytes > this.left) return false;
    this.left -= bytes;
    return true;
  }
  give(bytes: number): void { this.left += bytes; }
}

export class StagingWriter {
  private pending: arrow.RecordBatch[] = [];
  private pendingRows = 0;
  private part = 0;
  private inflight: Promise<void>[] = [];
  /** The file being streamed to an encoder (see `add`), and the rows it holds so far. */
  private open: { file: string; enc: EncodingStream; rows: number } | null = null;
  readonly files: StagedFile[] = [];

  constructor(readonly dir: string, private readonly encoder: ParquetEncoderPool, private readonly opts: { rowsPerFile?: number; maxInFlight?: number; hold?: MemoryHold } = {}) {}

  /** Clear what an earlier attempt left; the folder itself is made with the first file (a unit with no row, or held in memory, makes none). */
  async init(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
  }

  /**
   * Without a memory hold (an INITIAL), a file's rows go to an encoder as they come once they are
   * more than an inline encode's worth: the encoding overlaps the extraction. With one, rows wait
   * until the file is full (a small unit may yet be held in memory, never written).
   */
  async add(batch: arrow.RecordBatch): Promise<void> {
    if (batch.numRows === 0) return;
    this.pending.push(batch);
    this.pendingRows += batch.numRows;
    const full = (this.open?.rows ?? 0) + this.pendingRows >= (this.opts.rowsPerFile ?? 262_144);
    if (!this.opts.hold && (this.open || this.pendingRows > STREAM_MIN_ROWS)) await this.stream(full);
    else if (full) await this.cut();
  }

  /** Send the pending rows to the streamed file (opening it first), closing it when `full`. */
  private async stream(full: boolean): Promise<void> {
    await this.encoder.room();
    if (!this.open) {
      if (this.part === 0) await fs.mkdir(this.dir, { recursive: true });
      const file = path.join(this.dir, `part-${String(this.part++).padStart(5, '0')}.parquet`);
      this.open = { file, enc: this.encoder.stream(file), rows: 0 };
    }
    if (this.pendingRows) this.open.enc.add(this.pending);
    this.open.rows += this.pendingRows;
    this.pending = [];
    this.pendingRows = 0;
    if (full) await this.closeOpen();
  }

  /** Close the streamed file: its size is known once the encoder has written it. */
  private async closeOpen(): Promise<void> {
    if (!this.open) return;
    const { file, enc, rows } = this.open;
    this.open = null;
    await this.settle(enc.finish().then((bytes) => { this.files.push({ path: file, rows, bytes }); }));
  }

  private async cut(): Promise<void> {
    if (!this.pendingRows) return;
    const batches = this.pending;
    const rows = this.pendingRows;
    this.pending = [];
    this.pendingRows = 0;
    await this.encoder.room();
    if (this.part === 0) await fs.mkdir(this.dir, { recursive: true });
    const file = path.join(this.dir, `part-${String(this.part++).padStart(5, '0')}.parquet`);
    await this.settle(this.encoder.write(file, batches).then((bytes) => { this.files.push({ path: file, rows, bytes }); }));
  }

  /** Track a file being encoded; waits while `maxInFlight` files are. */
  private async settle(p: Promise<void>): Promise<void> {
    this.inflight.push(p);
    // silent here only: the rejection is awaited later (finish() or settle() shifting `inflight`, discard()'s
    // allSettled); this keeps it from counting as unhandled while other files are still encoding
    p.catch(() => {});
    while (this.inflight.length >= (this.opts.maxInFlight ?? 2)) await this.inflight.shift();
  }

  /**
   * Flush the last rows and wait for every file; returns them in part order.
   * A unit that never filled a file is kept in memory when `hold` has room.
   */
  async finish(): Promise<StagedFile[]> {
    if (this.opts.hold && this.part === 0 && this.pendingRows > 0) {
      const bytes = this.pending.reduce((a, b) => a + b.data.byteLength, 0);
      if (this.opts.hold.take(bytes)) {
        this.files.push({ path: '', rows: this.pendingRows, bytes, batches: this.pending });
        this.pending = [];
        this.pendingRows = 0;
        return this.files;
      }
    }
    if (this.open) await this.stream(true);
    else await this.cut();
    while (this.inflight.length) await this.inflight.shift();
    this.files.sort((a, b) => a.path.localeCompare(b.path));
    return this.files;
  }

  /** Drop whatever this attempt wrote or held. */
  async discard(): Promise<void> {
    this.release();
    // a file still open is closed (and its write awaited) before the folder goes
    if (this.open) { const { enc } = this.open; this.open = null; this.inflight.push(enc.finish().then(() => {})); }
    await Promise.allSettled(this.inflight);
    this.inflight = [];
    this.pending = [];
    this.pendingRows = 0;
    this.files.length = 0;
    await fs.rm(this.dir, { recursive: true, force: true });
  }

  /** Give held rows' bytes back to the run's budget (once they are loaded or dropped). */
  release(): void {
    for (const f of this.files) if (f.batches) { this.opts.hold?.give(f.bytes); f.batches = undefined; }
  }
}
