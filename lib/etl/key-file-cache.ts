import type * as arrow from 'apache-arrow';
import type { ScanFileCache } from '../lake';
import { Lru } from '../cache/lru';

/**
 * The key columns `deletes: detect` read from each lake data file through the
 * table scan (keys compared by hashed buckets, and a single integer key with
 * `soft_delete`; a plain integer key has its own cache, int-key-files.ts), kept
 * for the next run in this process: a table's files are immutable and most of them are
 * the same from one INCREMENTAL to the next, so after the first comparison a
 * worker reads only the files written since (plus the small position-delete
 * files) and the lake side of the comparison costs what changed, not the key
 * count. Keyed by file path and columns, an entry can never be stale; the
 * least recently used are dropped past the byte budget. A one-shot process (the
 * CLI) starts cold and reads every file, as before.
 */
export class KeyFileCache implements ScanFileCache {
  private readonly lru: Lru<string, arrow.RecordBatch[]>;
  /** @param budget bytes of column data kept (8 bytes a bigint key: 128 MiB hold ~16 million). (Default: 128 MiB) */
  constructor(readonly budget = 128 * 1024 * 1024) {
    this.lru = new Lru({ maxBytes: budget, sizeOf: batchBytes });
  }

  get(key: string): arrow.RecordBatch[] | undefined { return this.lru.get(key); }
  set(key: string, batches: arrow.RecordBatch[]): void { this.lru.set(key, batches); }

  /** Bytes held. */
  get size(): number { return this.lru.bytes; }
}

const batchBytes = (batches: arrow.RecordBatch[]) =>
  batches.reduce((n, b) => n + b.data.children.reduce((m, d) => m + (d.values?.byteLength ?? 0) + (d.valueOffsets?.byteLength ?? 0) + (d.nullBitmap?.byteLength ?? 0), 0), 0);

/** The process's cache for `deletes: detect` (one per process: entries are valid across runs and tables). */
export const keyFileCache = new KeyFileCache();
