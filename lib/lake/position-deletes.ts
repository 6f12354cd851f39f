import type * as arrow from 'apache-arrow';

/**
 * A position-delete file's rows (`file_path`, `pos`) gathered by data file
 * path. The spec sorts a delete file by path, so each row's path is compared
 * as bytes with the current run's and decoded once a run: a string decode a
 * row (arrow-js `get`) was most of reading such a file, on every merge, scan
 * and `deletes: detect` comparison that meets one. Positions come from the
 * int64's two halves (a BigInt a row costs several times more). A column with
 * nulls or another layout takes the row-by-row road.
 */
export function addPositions(b: arrow.RecordBatch, into: Map<string, number[]>): void {
  const fpVec = b.getChild('file_path'), posVec = b.getChild('pos');
  if (!fpVec || !posVec) throw new Error('lake: a position-delete file lacks file_path or pos');
  const fp = fpVec.data[0], pos = posVec.data[0];
  const offsets = fp?.valueOffsets as unknown, bytes = fp?.values as unknown, vals = pos?.values as unknown;
  const plain = b.numRows > 0 && fpVec.data.length === 1 && posVec.data.length === 1 && !fp.nullCount && !pos.nullCount
    && offsets instanceof Int32Array && bytes instanceof Uint8Array && vals instanceof BigInt64Array;
  if (!plain) {
    for (let i = 0; i < b.numRows; i++) push(into, fpVec.get(i) as string, Number(posVec.get(i)));
    return;
  }
  const p64 = new Int32Array(vals.buffer, vals.byteOffset, vals.length * 2);
  let list: number[] = [], from = -1, to = -1;
  for (let i = 0; i < b.numRows; i++) {
    const a = offsets[i], z = offsets[i + 1];
    if (!sameBytes(bytes, a, z, from, to)) {
      from = a; to = z;
      const path = Buffer.from(bytes.buffer, bytes.byteOffset + a, z - a).toString('utf8');
      let l = into.get(path);
      if (!l) into.set(path, (l = []));
      list = l;
    }
    list.push(p64[2 * i + 1] * 4294967296 + (p64[2 * i] >>> 0));
  }
}

function push(into: Map<string, number[]>, path: string, pos: number): void {
  let l = into.get(path);
  if (!l) into.set(path, (l = []));
  l.push(pos);
}

/** Whether bytes[a, z) equal bytes[from, to). */
function sameBytes(bytes: Uint8Array, a: number, z: number, from: number, to: number): boolean {
  if (z - a !== to - from) return false;
  // from the end: paths of one table share their folder, and differ in the file name
  for (let k = z - a - 1; k >= 0; k--) if (bytes[a + k] !== bytes[from + k]) return false;
  return true;
}
