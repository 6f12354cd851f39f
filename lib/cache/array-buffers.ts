/**
 * ArrayBuffers given back for reuse, by exact byte length: the buffers of
 * batches an encoder thread has consumed (moved back to this thread), taken
 * again by the next batches' builders.
 *
 * Why: on these machines fresh memory is slow to first touch (~10 µs a 4 KiB
 * page): allocating and filling a 1.6 MB array cost 4.5 ms, filling a reused
 * one 0.1 ms. An INITIAL builds ~100 bytes of Arrow buffers a row, all fresh
 * before (bench/etl.ts: ~700 MB for 7M rows, paid inside the decoding loop and
 * in the collections its allocation rate set off). Buffers are handed out
 * zeroed, as fresh ones are. At most MAX_BYTES are held; past that the oldest
 * go to the garbage collector.
 */
const MAX_BYTES = 64 * 1024 * 1024;
/** Buffers smaller than this are not kept: the allocator reuses small blocks itself. */
export const MIN_POOLED_BYTES = 64 * 1024;

const free = new Map<number, ArrayBuffer[]>();
/** Every held buffer in the order given, to drop the oldest first. */
const order: ArrayBuffer[] = [];
let held = 0;

/** A zeroed buffer of `bytes` bytes: a given-back one when there is one of that size, else a new one. */
export function takeBuffer(bytes: number): ArrayBuffer {
  const list = bytes >= MIN_POOLED_BYTES ? free.get(bytes) : undefined;
  const b = list?.pop();
  if (!b) return new ArrayBuffer(bytes);
  order.splice(order.indexOf(b), 1);
  held -= bytes;
  new Uint8Array(b).fill(0);
  return b;
}

/** Gives a buffer back for reuse: only one nothing refers to any more (moved here from a worker that is done with it). */
export function giveBuffer(b: ArrayBuffer): void {
  if (b.byteLength < MIN_POOLED_BYTES || b.byteLength > MAX_BYTES || b.byteLength === 0) return;
  let list = free.get(b.byteLength);
  if (!list) free.set(b.byteLength, (list = []));
  list.push(b);
  order.push(b);
  held += b.byteLength;
  while (held > MAX_BYTES) {
    const old = order.shift()!;
    const l = free.get(old.byteLength)!;
    l.splice(l.indexOf(old), 1);
    held -= old.byteLength;
  }
}

/** Bytes held for reuse (tests). */
export function heldBytes(): number { return held; }
