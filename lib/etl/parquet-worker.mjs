// Worker thread: encodes Arrow IPC streams to Parquet files with parquet-wasm,
// off the thread that decodes source rows. Plain JS so it runs without a TS loader.
import { parentPort } from 'node:worker_threads';
import fs from 'node:fs';
import * as pw from 'parquet-wasm/node';
// The lake's one writer set-up; imported by path because this thread runs without a TS loader
// (lib/lake's index.ts re-exports the same module for TypeScript callers).
import { writerProperties } from '../lake/parquet-writer-properties.mjs';


// One buffer the IPC chunks of a file are joined into, reused file after file (fresh memory is
// slow to first touch here, and the worker encodes one file at a time).
let scratch = new Uint8Array(0);
function joined(chunks, bytes) {
  if (scratch.length < bytes) scratch = new Uint8Array(Math.ceil(bytes / (4 << 20)) * (4 << 20));
  let at = 0;
  for (const c of chunks) { scratch.set(c, at); at += c.byteLength; }
  return scratch.subarray(0, bytes);
}

parentPort.on('message', (m) => {
  try {
    const props = writerProperties(pw, { compression: m.compression, dictionary: m.dictionary, rowGroupRows: m.rowGroupRows });
    const table = pw.Table.fromIPCStream(joined(m.chunks, m.bytes));
    const bytes = pw.writeParquet(table, props);
    fs.writeFileSync(m.path, bytes);
    parentPort.postMessage({ id: m.id, ok: true, bytes: bytes.length });
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: String(e && e.message ? e.message : e) });
  }
});
