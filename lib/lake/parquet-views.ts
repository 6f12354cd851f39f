/**
 * A Parquet file's fixed-width columns visited where parquet-wasm decoded
 * them: each batch is handed to a synchronous visitor as Arrow data whose
 * buffers are views into the WebAssembly heap (the Arrow C Data Interface that
 * parquet-wasm exports), with no IPC serialisation and no copy.
 *
 * Why: a merge reads the key (and carried) columns of every candidate file and
 * keeps almost nothing of them — a probe per row, a few matched values taken.
 * Through `readParquetBatches` each batch was serialised to Arrow IPC inside
 * the heap, copied out into fresh memory and parsed again; in the lake bench's
 * 1% merge into 5M rows, waiting for those reads was most of the merge
 * (the reads queued behind the encoder thread, which they shared).
 *
 * The views are valid only during the visitor's call: the next batch's decoding
 * may grow the heap (which detaches its old buffer) and the batch is released
 * when the visitor returns. So the visitor must not keep the batch or its data
 * (values it needs it copies, as `takeData` does), and must not call into
 * parquet-wasm. Only columns of fixed-width types are viewed; a file whose read
 * columns include another type is not visited (the caller reads it the usual way).
 */
import * as arrow from 'apache-arrow';
import * as pw from 'parquet-wasm';
import { AppError } from '../errors';
import { GuardedBlob } from './guarded-blob';
import { columnsForFieldIds } from './parquet-columns.mjs';
import { batchRows } from './parquet';

/** Byte width of a value of a viewable type (0: a bit, for booleans), or null when it is not viewable. */
function widthOf(t: arrow.DataType): number | null {
  switch (t.typeId) {
    case arrow.Type.Int: return (t as arrow.Int).bitWidth / 8;
    case arrow.Type.Float: return (t as arrow.Float).precision === arrow.Precision.HALF ? null : (t as arrow.Float).precision === arrow.Precision.SINGLE ? 4 : 8;
    case arrow.Type.Date: return (t as arrow.Date_).unit === arrow.DateUnit.DAY ? 4 : 8;
    case arrow.Type.Time: return (t as arrow.Time).bitWidth / 8;
    case arrow.Type.Timestamp: return 8;
    case arrow.Type.Decimal: return (t as arrow.Decimal).bitWidth === 128 ? 16 : null;
    case arrow.Type.Bool: return 0;
    default: return null;
  }
}

/** Whether columns of this type are visited as views (fixed-width types). */
export const viewable = (t: arrow.DataType): boolean => widthOf(t) !== null;

/** The typed array arrow-js keeps a type's values in, over `bytes` bytes of `buffer` at `at`. */
function valuesView(t: arrow.DataType, buffer: ArrayBuffer, at: number, bytes: number): ArrayBufferView {
  switch (t.typeId) {
    case arrow.Type.Bool: return new Uint8Array(buffer, at, bytes);
    case arrow.Type.Float: return (t as arrow.Float).precision === arrow.Precision.SINGLE ? new Float32Array(buffer, at, bytes / 4) : new Float64Array(buffer, at, bytes / 8);
    case arrow.Type.Decimal: return new Uint32Array(buffer, at, bytes / 4);
    case arrow.Type.Int: {
      const i = t as arrow.Int;
      const Ctor = ({ 8: i.isSigned ? Int8Array : Uint8Array, 16: i.isSigned ? Int16Array : Uint16Array, 32: i.isSigned ? Int32Array : Uint32Array, 64: i.isSigned ? BigInt64Array : BigUint64Array } as const)[i.bitWidth];
      return new Ctor(buffer, at, bytes / Ctor.BYTES_PER_ELEMENT);
    }
    default: return (widthOf(t) === 4 ? new Int32Array(buffer, at, bytes / 4) : new BigInt64Array(buffer, at, bytes / 8));
  }
}

/**
 * One exported batch (a struct array, Arrow C Data Interface, wasm32 layout: five int64 fields,
 * then 32-bit pointers) as an arrow-js batch of `schema` over views of the heap.
 */
function viewBatch(mem: WebAssembly.Memory, addr: number, schema: arrow.Schema): arrow.RecordBatch {
  const buffer = mem.buffer as ArrayBuffer;
  const dv = new DataView(buffer);
  const i64 = (p: number) => Number(dv.getBigInt64(p, true));
  const u32 = (p: number) => dv.getUint32(p, true);
  const rows = i64(addr);
  if (i64(addr + 32) !== schema.fields.length) throw new Error(`a batch has ${i64(addr + 32)} columns, its schema ${schema.fields.length}`);
  const children = schema.fields.map((f, c) => {
    const a = u32(u32(addr + 44) + 4 * c);
    const length = i64(a), nullCount = i64(a + 8), offset = i64(a + 16);
    if (i64(a + 24) !== 2 || length !== rows) throw new Error(`column ${f.name} is not a fixed-width array of ${rows} rows`);
    const bufs = u32(a + 40);
    const validity = u32(bufs), values = u32(bufs + 4);
    const width = widthOf(f.type)!;
    // arrow-js keeps a slice's values from its first row on, and its validity bitmap from bit 0 with `offset`
    const data = width === 0
      ? valuesView(f.type, buffer, values, Math.ceil((offset + length) / 8))
      : valuesView(f.type, buffer, values + offset * width, length * width);
    const nullBitmap = nullCount > 0 && validity ? new Uint8Array(buffer, validity, Math.ceil((offset + length) / 8)) : undefined;
    // a boolean's values are bits from `offset` too: arrow-js reads them with the Data's offset
    return arrow.makeData({ type: f.type, length, nullCount: nullBitmap ? nullCount : 0, offset: width === 0 || nullBitmap ? offset : 0, data, nullBitmap } as never);
  });
  return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows, nullCount: 0, children }));
}

/**
 * Visits the batches of the columns `fieldIds` (by `PARQUET:field_id`) of a Parquet file in file
 * order, row group by row group; returns false, having visited nothing, when one of those columns
 * is not of a fixed-width type. See the file's comment for what the visitor may do.
 */
export async function visitParquetColumns(bytes: Uint8Array | Blob, what: string, fieldIds: Set<number>, visit: (batch: arrow.RecordBatch) => void): Promise<boolean> {
  const blob = bytes instanceof Blob ? new GuardedBlob(bytes) : null;
  const readFailure = () => blob?.failure.error
    ? new AppError('internal', `lake: cannot read Parquet file ${what}: ${(blob.failure.error as Error).message}`, { cause: blob.failure.error })
    : null;
  const failed = (e: unknown) => readFailure() ?? new AppError('fatal', `lake: cannot read Parquet file ${what}: ${(e as Error).message}`, { cause: e });
  let pf: pw.ParquetFile;
  let schema: arrow.Schema;
  let columns: string[] | undefined;
  try {
    pf = await pw.ParquetFile.fromFile(blob ?? new Blob([bytes as Uint8Array<ArrayBuffer>]));
  } catch (e) {
    throw readFailure() ?? new AppError('fatal', `lake: corrupt Parquet file ${what}: ${(e as Error).message}`, { cause: e });
  }
  try {
    try {
      const fields = arrow.tableFromIPC(pf.schema().intoIPCStream()).schema.fields;
      columns = columnsForFieldIds(fields, fieldIds);
      // the batches hold the projected columns in the file's order
      schema = new arrow.Schema(columns ? fields.filter((f) => columns!.includes(f.name)) : fields);
    } catch (e) {
      throw readFailure() ?? new AppError('fatal', `lake: corrupt Parquet file ${what}: ${(e as Error).message}`, { cause: e });
    }
    if (schema.fields.some((f) => widthOf(f.type) === null)) return false;
    const mem = pw.wasmMemory();
    const groups = pf.metadata().numRowGroups();
    for (let rg = 0; rg < groups; rg++) {
      const stream = await pf.stream({ rowGroups: [rg], batchSize: batchRows(schema.fields.length), ...(columns ? { columns } : {}) }).catch((e) => { throw failed(e); });
      const it = (stream as unknown as AsyncIterable<pw.RecordBatch>)[Symbol.asyncIterator]();
      let done = false;
      try {
        for (;;) {
          let ffi: pw.FFIData;
          try {
            const r = await it.next();
            if ((done = !!r.done)) break;
            ffi = r.value.intoFFI();
          } catch (e) { done = true; throw failed(e); }
          try {
            // Zeros a failed read handed over may even decode: never visit what the store did not send.
            { const f = readFailure(); if (f) throw f; }
            let batch: arrow.RecordBatch;
            try { batch = viewBatch(mem, ffi.arrayAddr(), schema); } catch (e) { throw failed(e); }
            visit(batch);
          } finally { ffi.free(); }
        }
      } finally {
        // a visitor that threw leaves the group's stream open: cancel it
        if (!done) await it.return?.().catch(() => {});
      }
    }
    return true;
  } finally { pf.free(); }
}
