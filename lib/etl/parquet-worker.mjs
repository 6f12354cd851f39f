// Worker thread: encodes Arrow IPC streams to Parquet files with parquet-wasm,
// off the thread that decodes source rows. Plain JS so it runs without a TS loader.
import { parentPort } from 'node:worker_threads';
import fs from 'node:fs';
import * as pw from 'parquet-wasm/node';

const codecs = { snappy: pw.Compression.SNAPPY, zstd: pw.Compression.ZSTD, uncompressed: pw.Compression.UNCOMPRESSED, lz4: pw.Compression.LZ4_RAW };

parentPort.on('message', (m) => {
  try {
    const props = new pw.WriterPropertiesBuilder()
      .setCompression(codecs[m.compression] ?? pw.Compression.SNAPPY)
      .setDictionaryEnabled(m.dictionary !== false)
      .setDictionaryPageSizeLimit(64 * 1024) // see DICTIONARY_PAGE_LIMIT in parquet-encoder.ts
      .setMaxRowGroupSize(m.rowGroupSize ?? 1_048_576)
      .build();
    const table = pw.Table.fromIPCStream(new Uint8Array(m.ipc, 0, m.length));
    const bytes = pw.writeParquet(table, props);
    fs.writeFileSync(m.path, bytes);
    // the IPC buffer goes back to the pool it came from
    parentPort.postMessage({ id: m.id, ok: true, bytes: bytes.length, ipc: m.ipc }, [m.ipc]);
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: String(e && e.message ? e.message : e), ipc: m.ipc }, [m.ipc]);
  }
});
