/**
 * The integer keys of one unit's extract as bits over their span, grown as the
 * keys arrive, with each repeated key noted as it comes (KeyTracker's integer
 * road). A bit a key where collecting the keys as numbers cost 8 bytes a key
 * and a copy at each doubling: 56 MB of fresh memory for bench/etl.ts's 7M-row
 * INITIAL, whose first touch cost ~0.5 s of the extracting thread here, and
 * memory that grew with the table. A span too sparse for bits (more than 64
 * bits a key, past the first 2^20) is refused: the caller collects the keys
 * as numbers instead, starting from `keys()`.
 */
/** Bits of span allowed whatever the key count (128 KiB), so the first keys settle the span. */
const MIN_SPAN = 2 ** 20;

export class IntKeyBits {
  /** The key bit 0 of `words` stands for (a multiple of 32). */
  private base = 0;
  private words = new Int32Array(0);
  /** Keys added (repeats included). */
  count = 0;
  /** Each key seen more than once, once. */
  readonly repeated = new Set<number>();

  /**
   * Adds key `k` (an integer within ±2^53); false when it would spread the span past the density
   * bound: nothing is added then, and the caller leaves this road.
   */
  add(k: number): boolean {
    let o = k - this.base;
    if (o < 0 || o >= this.words.length * 32) {
      if (!this.grow(k)) return false;
      o = k - this.base;
    }
    const w = o >>> 5, bit = 1 << (o & 31);
    if (this.words[w] & bit) this.repeated.add(k); else this.words[w] |= bit;
    this.count++;
    return true;
  }

  /** Widens the span to hold `k`: at least doubling it, towards `k` (keys mostly come in order). */
  private grow(k: number): boolean {
    const cap = this.words.length * 32;
    const kb = Math.floor(k / 32) * 32;
    const lo = this.count ? Math.min(this.base, kb) : kb;
    const hi = this.count ? Math.max(this.base + cap, kb + 32) : kb + 32;
    const span = Math.max(hi - lo, 2 * cap, 1 << 16);
    if (span > Math.max(MIN_SPAN, 64 * (this.count + 1))) return false;
    const base = this.count && k < this.base ? hi - span : lo;
    const words = new Int32Array(span / 32);
    if (this.count) words.set(this.words, (this.base - base) / 32);
    this.base = base;
    this.words = words;
    return true;
  }

  /** The distinct keys added, ascending, and each repeated one a second time (so a count of the keys' repeats finds them). */
  keys(): Float64Array {
    let n = this.repeated.size;
    for (let w = 0; w < this.words.length; w++) n += popcount(this.words[w]);
    const out = new Float64Array(n);
    let at = 0;
    for (let w = 0; w < this.words.length; w++) {
      for (let v = this.words[w]; v !== 0; v &= v - 1) out[at++] = this.base + w * 32 + (31 - Math.clz32(v & -v));
    }
    for (const k of this.repeated) out[at++] = k;
    return out;
  }
}

function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}
