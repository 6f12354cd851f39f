/**
 * Interleave slices so each wave of `waveSize` concurrent apps reads from
 * across the whole range instead of one neighbourhood (hot blocks, target
 * write throttling). Pure.
 */

/**
 * New order of positions 0..n-1: cut the boundary order into `waveSize`
 * contiguous blocks (sizes differ by at most one, larger first) and take one
 * slice from each block per wave. Every wave but a final partial one holds a
 * slice from every block, so it spans the whole range.
 */
export function assortOrder(n: number, waveSize: number): number[] {
  if (n <= 0) return [];
  const w = Math.max(1, Math.min(waveSize, n));
  const q = Math.floor(n / w);
  const r = n % w;
  const start = (b: number) => b * q + Math.min(b, r);
  const size = (b: number) => q + (b < r ? 1 : 0);
  const order: number[] = [];
  for (let j = 0; j <= q; j++) {
    for (let b = 0; b < w; b++) if (j < size(b)) order.push(start(b) + j);
  }
  return order;
}

export function assort<T>(items: T[], waveSize: number): T[] {
  return assortOrder(items.length, waveSize).map((i) => items[i]);
}

export interface Wave {
  /** 1-based wave number. */
  wave: number;
  /** 1-based original (boundary-order) positions in this wave. */
  positions: number[];
  /** (max - min) / (n - 1): 1 means the wave spans the whole range. */
  span: number;
}

/** Waves of an assorted order (positions are the original 0-based indexes). */
export function waves(order: number[], waveSize: number): Wave[] {
  const n = order.length;
  const out: Wave[] = [];
  for (let i = 0; i < n; i += waveSize) {
    const pos = order.slice(i, i + waveSize);
    const span = n > 1 ? (Math.max(...pos) - Math.min(...pos)) / (n - 1) : 1;
    out.push({ wave: out.length + 1, positions: pos.map((p) => p + 1), span });
  }
  return out;
}

/** The wave-by-wave summary printed by `--assort` and `slices assort`. */
export function formatWaveSummary(ws: Wave[], total: number): string {
  const lines = [`assorted ${total} slices into ${ws.length} waves of up to ${ws[0]?.positions.length ?? 0}:`];
  for (const w of ws) lines.push(`  wave ${String(w.wave).padStart(3)}: slices ${w.positions.join(', ')}  (span ${(w.span * 100).toFixed(0)}% of the range)`);
  return lines.join('\n');
}
