import { describe, expect, it } from 'vitest';
import { IntKeyBits } from './int-key-bits';

describe('IntKeyBits', () => {
  it('marks keys arriving in any order, growing up and down, and notes each repeat once', () => {
    const b = new IntKeyBits();
    // a fixed shuffle of 200k keys around zero, with three repeated (one of them three times)
    const keys = Array.from({ length: 200_000 }, (_, i) => i - 100_000);
    let seed = 7;
    for (let i = keys.length - 1; i > 0; i--) { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; const j = seed % (i + 1); [keys[i], keys[j]] = [keys[j], keys[i]]; }
    const refused = [...keys.slice(0, 150_000), -100_000, 5, 99_999, 5, ...keys.slice(150_000)].filter((k) => !b.add(k));
    expect(refused).toEqual([]);
    expect(b.count).toBe(200_004);
    expect([...b.repeated].sort((x, y) => x - y)).toEqual([-100_000, 5, 99_999]);
    const all = Array.from(b.keys());
    // each distinct key once, ascending, then the repeated ones again
    expect(all.slice(0, 200_000)).toEqual(Array.from({ length: 200_000 }, (_, i) => i - 100_000));
    expect(all.slice(200_000).sort((x, y) => x - y)).toEqual([-100_000, 5, 99_999]);
  });

  it('keys near ±2^53 and at word edges', () => {
    const b = new IntKeyBits();
    const top = 2 ** 53 - 1;
    for (const k of [top, top - 31, top - 32, top - 33, top, top - 64]) expect(b.add(k)).toBe(true);
    expect([...b.repeated]).toEqual([top]);
    expect(Array.from(b.keys())).toEqual([top - 64, top - 33, top - 32, top - 31, top, top]);
    const n = new IntKeyBits();
    for (const k of [-(2 ** 53) + 1, -(2 ** 53) + 40]) expect(n.add(k)).toBe(true);
    expect(Array.from(n.keys())).toEqual([-(2 ** 53) + 1, -(2 ** 53) + 40]);
  });

  it('refuses a key that would make the span sparser than 64 bits a key (past the first 2^20), adding nothing', () => {
    const b = new IntKeyBits();
    for (let k = 0; k < 1000; k++) expect(b.add(k)).toBe(true);
    expect(b.add(500_000)).toBe(true); // within the first 2^20 bits
    expect(b.add(10 ** 9)).toBe(false);
    expect(b.count).toBe(1001);
    expect(b.keys()).toHaveLength(1001);
    // a dense run keeps being accepted as it grows past 2^20
    const d = new IntKeyBits();
    for (let k = 0; k < 3_000_000; k++) if (!d.add(k)) throw new Error(`refused ${k}`);
    expect(d.repeated.size).toBe(0);
  });
});
