import type { FileHandle } from 'node:fs/promises';

/** A Blob whose slices read their bytes only when asked, one ranged read each (range-blob.mjs). */
export declare class RangeBlob extends Blob {
  constructor(readRange: (start: number, end: number) => Promise<Uint8Array>, start: number, end: number, mime?: string);
}

/** Bytes [start, end) of an open file (short only when the file is shorter). */
export declare function readFileRange(fh: FileHandle, start: number, end: number): Promise<Uint8Array<ArrayBuffer>>;
