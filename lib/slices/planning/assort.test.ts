import { describe, expect, it } from 'vitest';
import { assort, assortOrder, formatWaveSummary, waves } from './assort';
import { formatQueryfile, parseQueryfile } from './queryfile';

describe('assort', () => {
  it('is a permutation and every wave spans the range', () => {
    for (const [n, w] of [[64, 5], [10, 3], [7, 7], [100, 8], [5, 10], [33, 4]]) {
      const order = assortOrder(n, w);
      expect([...order].sort((a, b) => a - b)).toEqual([...Array(n).keys()]);
      const ws = waves(order, Math.min(w, n));
      const block = Math.ceil(n / Math.min(w, n));
      ws.forEach((wave, i) => {
        const min = Math.min(...wave.positions) - 1;
        const max = Math.max(...wave.positions) - 1;
        // every wave starts in the first block; every full wave reaches the last block
        expect(min).toBeLessThan(block);
        if (i < ws.length - 1) expect(wave.positions.length).toBe(Math.min(w, n));
        if (wave.positions.length === Math.min(w, n)) expect(max).toBeGreaterThanOrEqual(n - block);
      });
    }
  });
  it('reorders lines and prints a wave summary', () => {
    const items = Array.from({ length: 10 }, (_, i) => `s${i + 1}`);
    expect(assort(items, 3)).toEqual(['s1', 's5', 's8', 's2', 's6', 's9', 's3', 's7', 's10', 's4']);
    const text = formatWaveSummary(waves(assortOrder(10, 3), 3), 10);
    expect(text).toContain('wave   1: slices 1, 5, 8  (span 78% of the range)');
  });
});

describe('queryfile', () => {
  it('round-trips SQL holding || and splits on the last |', () => {
    const lines = [{ sql: "SELECT s.a || '|' || s.b FROM PAY.T s WHERE 1=1", target: 'PAY.TGT' }];
    const text = formatQueryfile(lines);
    expect(text).toBe("SELECT s.a || '|' || s.b FROM PAY.T s WHERE 1=1|PAY.TGT\n");
    expect(parseQueryfile(text + '\n# comment\n')).toEqual(lines);
    expect(() => parseQueryfile('SELECT 1')).toThrow('✗ queryfile line 1 is not SQL|TARGET');
    expect(() => formatQueryfile([{ sql: 'x', target: 'A|B' }])).toThrow("✗ target must be non-empty and must not contain '|'");
  });
});
