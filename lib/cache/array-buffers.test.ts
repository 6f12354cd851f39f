import { describe, expect, it } from 'vitest';
import { giveBuffer, heldBytes, MIN_POOLED_BYTES, takeBuffer } from './array-buffers';

describe('array buffers given back for reuse', () => {
  it('a buffer given back is taken again for its exact size, zeroed; other sizes and small ones get new buffers', () => {
    const size = MIN_POOLED_BYTES * 3;
    const before = heldBytes();
    const b = new ArrayBuffer(size);
    new Uint8Array(b).fill(7);
    giveBuffer(b);
    expect(heldBytes()).toBe(before + size);
    const other = takeBuffer(size + 8);
    expect(other).not.toBe(b);
    const again = takeBuffer(size);
    expect(again).toBe(b);
    expect(new Uint8Array(again).every((x) => x === 0)).toBe(true);
    expect(heldBytes()).toBe(before);
    expect(takeBuffer(size)).not.toBe(b); // taken once: not handed out twice
    const small = new ArrayBuffer(MIN_POOLED_BYTES - 1);
    giveBuffer(small);
    expect(heldBytes()).toBe(before);
    expect(takeBuffer(MIN_POOLED_BYTES - 1)).not.toBe(small);
  });

  it('holds at most 64 MiB: past that the oldest buffers are dropped', () => {
    const size = 8 * 1024 * 1024;
    const bufs = Array.from({ length: 10 }, () => new ArrayBuffer(size));
    for (const b of bufs) giveBuffer(b);
    expect(heldBytes()).toBeLessThanOrEqual(64 * 1024 * 1024);
    const taken = new Set(Array.from({ length: 10 }, () => takeBuffer(size)));
    // the two oldest were dropped; the newest eight come back
    expect(bufs.slice(0, 2).some((b) => taken.has(b))).toBe(false);
    expect(bufs.slice(2).every((b) => taken.has(b))).toBe(true);
  });
});
