// Worker thread: encodes Arrow IPC streams to Parquet files with parquet-wasm, off
// the thread that decodes source rows or feeds the lake's writer. Plain JS so it
// runs without a TS loader. A file goes to `path` (the ETL's staging) or, with no
// path, back to the caller as bytes (the lake's data files, written through its storage).
// It also decodes columns of a local Parquet file for a merge ('read', readColumns below).
import { parentPort } from 'node:worker_threads';
import fs from 'node:fs';
import * as arrow from 'apache-arrow';
import * as pw from 'parquet-wasm/node';
import { columnsForFieldIds } from './parquet-columns.mjs';
import { RangeBlob, readFileRange } from './range-blob.mjs';
// The lake's one writer set-up; imported by path because this thread runs without a TS loader
// (lib/lake's index.ts re-exports the same module for TypeScript callers).
import { writerProperties } from './parquet-writer-properties.mjs';


// One buffer the IPC chunks of a message are joined into, reused message after message (fresh
// memory is slow to first touch here; parquet-wasm copies what it reads before the next message).
let scratch = new Uint8Array(0);
function joined(chunks, bytes) {
  if (chunks.length === 1) return chunks[0]; // one buffer already (the lake's pieces): nothing to join
  if (scratch.length < bytes) scratch = new Uint8Array(Math.ceil(bytes / (4 << 20)) * (4 << 20));
  let at = 0;
  for (const c of chunks) { scratch.set(c, at); at += c.byteLength; }
  return scratch.subarray(0, bytes);
}

const propsOf = (m) => writerProperties(pw, m.settings);

/**
 * The chunks written in order, a few hundred per system call, without joining them first: joining
 * copied every file once more into fresh memory (1.15 s of the encoder thread in a profile of
 * bench/etl.ts's 7M-row INITIAL; part of that was the memory's first touch, which the chunks' own
 * copy out of the WASM heap pays now). A failure leaves a partial file, as writeFileSync did: the
 * caller deletes what it does not commit.
 */
function writeParts(path, parts) {
  const fd = fs.openSync(path, 'w');
  try {
    for (let i = 0; i < parts.length; i += 256) {
      const group = parts.slice(i, i + 256);
      const want = group.reduce((a, c) => a + c.byteLength, 0);
      const wrote = fs.writevSync(fd, group);
      // a short write (rare on a regular file): the rest of the group, chunk by chunk
      if (wrote < want) writeRest(fd, group, wrote);
    }
  } finally { fs.closeSync(fd); }
}

/** The bytes of `group` after the first `skip`, written until all are. */
function writeRest(fd, group, skip) {
  for (const c of group) {
    if (skip >= c.byteLength) { skip -= c.byteLength; continue; }
    let at = skip;
    skip = 0;
    while (at < c.byteLength) at += fs.writeSync(fd, c, at, c.byteLength - at);
  }
}

/**
 * The finished file (its chunks, in order): written to its path (the reply carries its size), or
 * handed back as the chunks themselves, moved rather than joined here — joining held the file
 * twice in this thread's heap, which does not give memory back soon.
 */
function done(id, path, parts) {
  const bytes = parts.reduce((a, c) => a + c.byteLength, 0);
  if (path) { writeParts(path, parts); parentPort.postMessage({ id, ok: true, bytes }); return; }
  const own = parts.map((c) => (c.byteOffset === 0 && c.byteLength === c.buffer.byteLength ? c : c.slice()));
  parentPort.postMessage({ id, ok: true, bytes, parts: own }, own.map((c) => c.buffer));
}

/**
 * Files written batch by batch ('open', 'batch'…, 'close'): parquet-wasm's streaming writer encodes
 * each batch into its row group as it arrives, so a file's encoding overlaps the extraction of its
 * rows instead of all starting when the file is cut (with many units extracting at once, every
 * file was cut near the end, and the encoding ran after the decoding instead of beside it).
 */
const streams = new Map();

function openStream(m) {
  streams.set(m.id, { id: m.id, path: m.path, settings: m.settings, recycle: !!m.recycle, started: false, queue: [], closed: false, wake: null, failed: false });
}

/**
 * The file's encoding starts with its first batch (or its close, for a file of no rows): that
 * message may name the integer-like columns to write DELTA_BINARY_PACKED (`deltaColumns`), which
 * a staged file's writer learns only from its first rows.
 */
function startStream(s, deltaColumns) {
  s.started = true;
  const settings = deltaColumns ? { ...s.settings, deltaColumns } : s.settings;
  // highWaterMark 0: a batch is converted into wasm memory only when the writer asks for it
  const input = new ReadableStream({ pull: (c) => pullBatch(s, c) }, { highWaterMark: 0 });
  (async () => {
    const out = await pw.transformParquetStream(input, propsOf({ settings }));
    const parts = [];
    let bytes = 0;
    for await (const c of out) parts.push(c);
    return parts;
  })().then((parts) => {
    streams.delete(s.id);
    done(s.id, s.path, parts);
  }, (e) => {
    s.failed = true;
    // its queued batches are not encoded: hand their bytes back to the queue's account
    const left = s.queue.reduce((a, q) => a + q.bytes, 0);
    s.queue = [];
    if (left) parentPort.postMessage({ id: s.id, taken: left });
    if (s.closed) streams.delete(s.id);
    parentPort.postMessage({ id: s.id, ok: false, error: String(e && e.message ? e.message : e) });
    s.wake?.();
  });
}

async function pullBatch(s, c) {
  while (!s.queue.length && !s.closed) await new Promise((r) => { s.wake = r; });
  s.wake = null;
  const m = s.queue.shift();
  if (!m) { c.close(); return; }
  const t = pw.Table.fromIPCStream(joined(m.chunks, m.bytes));
  for (const b of t.recordBatches()) c.enqueue(b);
  t.free();
  // the batch is in the encoder's memory now: its buffers go back for the sender's next batches
  // (`recycle`: lib/cache/array-buffers.ts), moved, with nothing here referring to them any more
  const back = s.recycle ? [...new Set(m.chunks.map((x) => x.buffer))].filter((b) => b.byteLength >= RECYCLE_MIN_BYTES) : [];
  parentPort.postMessage({ id: s.id, taken: m.bytes, ...(back.length ? { buffers: back } : {}) }, back);
}

/** Buffers smaller than this are not sent back (lib/cache/array-buffers.ts keeps none). */
const RECYCLE_MIN_BYTES = 64 * 1024;

/**
 * Columns (by field id) of a local Parquet file, decoded here and sent back batch by batch as
 * Arrow IPC streams (moved, not copied): a merge's thread probes one file's keys while this one
 * decodes the next file's. Replies `part` per batch, then `done`; a failure replies `error` with
 * the stage it failed at (`open`: the file could not be opened; `parse`: not a readable Parquet
 * file; `read`: a column could not be decoded) so the caller words it as its own reader does.
 */
async function readColumns(m) {
  const fail = (stage, e) => parentPort.postMessage({ id: m.id, ok: false, stage, code: e && e.code, error: String(e && e.message ? e.message : e) });
  let fh;
  try { fh = await fs.promises.open(m.path, 'r'); } catch (e) { fail('open', e); return; }
  let pf;
  try {
    let columns;
    try {
      const { size } = await fh.stat();
      pf = await pw.ParquetFile.fromFile(new RangeBlob((s, e) => readFileRange(fh, s, e), 0, size));
      if (m.fieldIds) columns = columnsForFieldIds(arrow.tableFromIPC(pf.schema().intoIPCStream()).schema.fields, new Set(m.fieldIds));
    } catch (e) { fail('parse', e); return; }
    try {
      const groups = pf.metadata().numRowGroups();
      for (let rg = 0; rg < groups; rg++) {
        const stream = await pf.stream({ rowGroups: [rg], batchSize: m.batchSize, ...(columns ? { columns } : {}) });
        for await (const b of stream) {
          const ipc = b.intoIPCStream();
          const own = ipc.byteOffset === 0 && ipc.byteLength === ipc.buffer.byteLength ? ipc : ipc.slice();
          parentPort.postMessage({ id: m.id, part: own }, [own.buffer]);
        }
      }
    } catch (e) { fail('read', e); return; }
    parentPort.postMessage({ id: m.id, ok: true, done: true });
  } finally {
    pf?.free();
    await fh.close().catch(() => {}); // read-only: nothing to lose
  }
}

parentPort.on('message', (m) => {
  if (m.type === 'open') { openStream(m); return; }
  if (m.type === 'read') { void readColumns(m); return; }
  if (m.type === 'batch' || m.type === 'close') {
    const s = streams.get(m.id);
    if (!s) return;
    if (s.failed) {
      if (m.type === 'batch') parentPort.postMessage({ id: m.id, taken: m.bytes });
      else streams.delete(m.id);
      return;
    }
    if (!s.started) startStream(s, m.deltaColumns);
    if (m.type === 'batch') s.queue.push(m); else s.closed = true;
    s.wake?.();
    return;
  }
  try {
    const table = pw.Table.fromIPCStream(joined(m.chunks, m.bytes));
    done(m.id, m.path, [pw.writeParquet(table, propsOf(m))]);
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: String(e && e.message ? e.message : e) });
  }
});
