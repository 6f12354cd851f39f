/**
 * A merge's read of one candidate file's key (and kept) columns, decoded by
 * an encoder worker instead of the merge's own thread when the file is on
 * local disk. Why: a merge spends most of its thread decoding the key column
 * of every file a changed key may sit in (in a profile of the lake bench's 1%
 * merge, ~370 ms of ~1.3 s), while the encoder workers wait for its few new rows; with the
 * decoding moved there, the merge's thread probes one partition's keys while
 * a worker decodes the next partition's file (merge.ts runs two at once).
 *
 * Used when a worker is started and idle (no start-up to pay, no encoding
 * held up), or, when none is started yet, for a file large enough to be worth
 * starting one. A busy worker is left to its encoding (a large upsert keeps it
 * busy: its reads stay here), and an object store's file is read here as
 * before. Errors are worded as the in-thread reader words them.
 */
import type * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import { lakeEncoders, WorkerReadError } from './encoder-pool';
import { batchRows } from './parquet';
import type { Storage } from './storage';
import { unreadable } from './unreadable';

/** A file of at least this many rows is worth starting a worker for. */
export const OFFLOAD_MIN_ROWS = 200_000;

/** The local path to hand a worker for this file, or null when it is read in this thread. */
export function offloadPath(storage: Storage, uri: string, rows: number): string | null {
  if (!storage.localPath) return null;
  const pool = lakeEncoders();
  return pool.idleStarted || (!pool.started && rows >= OFFLOAD_MIN_ROWS) ? storage.localPath(uri) : null;
}

/** The file's columns `fieldIds` read by a worker, batch by batch (`what`: the file as its table names it, `ident`: the table). */
export async function* readOffloaded(ident: string, what: string, local: string, fieldIds: Set<number>): AsyncGenerator<arrow.RecordBatch> {
  try {
    yield* lakeEncoders().read(local, [...fieldIds], batchRows(fieldIds.size));
  } catch (e) {
    if (!(e instanceof WorkerReadError)) throw e;
    if (e.stage === 'open') throw new AppError('internal', unreadable(ident, 'data file', what, e), { cause: e });
    if (e.stage === 'parse') throw new AppError('fatal', `lake: corrupt Parquet file ${what}: ${e.message}`, { cause: e });
    if (e.stage === 'worker') throw new AppError('internal', `lake: cannot read Parquet file ${what}: its reader thread failed: ${e.message}`, { cause: e });
    throw new AppError('fatal', `lake: cannot read Parquet file ${what}: ${e.message}`, { cause: e });
  }
}
