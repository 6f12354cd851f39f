import fs from 'node:fs/promises';
import path from 'node:path';
import type * as arrow from 'apache-arrow';
import type { ParquetEncoderPool } from './parquet-encoder';

/**
 * Staged Parquet for one (table, branch) extraction: batches are grouped into
 * files of at most `rowsPerFile` rows and encoded off-thread; at most
 * `maxInFlight` files are being encoded at once (bounded memory).
 * Files land in `<root>/<runId>/<table>/<branch>/part-NNNNN.parquet`.
 */
export interface StagedFile { path: string; rows: number; bytes: number }

export class StagingWriter {
  private pending: arrow.RecordBatch[] = [];
  private pendingRows = 0;
  private part = 0;
  private inflight: Promise<void>[] = [];
  readonly files: StagedFile[] = [];

  constructor(readonly dir: string, private readonly encoder: ParquetEncoderPool, private readonly opts: { rowsPerFile?: number; maxInFlight?: number } = {}) {}

  async init(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
    await fs.mkdir(this.dir, { recursive: true });
  }

  async add(batch: arrow.RecordBatch): Promise<void> {
    if (batch.numRows === 0) return;
    this.pending.push(batch);
    this.pendingRows += batch.numRows;
    if (this.pendingRows >= (this.opts.rowsPerFile ?? 262_144)) await this.cut();
  }

  private async cut(): Promise<void> {
    if (!this.pendingRows) return;
    const batches = this.pending;
    const rows = this.pendingRows;
    this.pending = [];
    this.pendingRows = 0;
    await this.encoder.room();
    const file = path.join(this.dir, `part-${String(this.part++).padStart(5, '0')}.parquet`);
    const p = this.encoder.write(file, batches).then((bytes) => { this.files.push({ path: file, rows, bytes }); });
    this.inflight.push(p);
    p.catch(() => {});
    while (this.inflight.length >= (this.opts.maxInFlight ?? 2)) await this.inflight.shift();
  }

  /** Flush the last rows and wait for every file; returns them in part order. */
  async finish(): Promise<StagedFile[]> {
    await this.cut();
    while (this.inflight.length) await this.inflight.shift();
    this.files.sort((a, b) => a.path.localeCompare(b.path));
    return this.files;
  }

  /** Drop whatever this attempt wrote. */
  async discard(): Promise<void> {
    await Promise.allSettled(this.inflight);
    this.inflight = [];
    this.pending = [];
    this.pendingRows = 0;
    this.files.length = 0;
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}
