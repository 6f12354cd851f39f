import { describe, expect, it } from 'vitest';
import { deletedIntKeys, type IntKeySource } from './detect-int-keys';

/**
 * A source that answers the two statements detect-int-keys renders from an
 * in-memory key set (the SQL itself runs against real Postgres in
 * etl-deletes.test.ts); Oracle's answers come back with upper-case aliases.
 */
function fakeSource(dialect: 'postgres' | 'oracle', keys: number[], sqls: string[]): IntKeySource {
  const up = (r: Record<string, string>) => (dialect === 'oracle' ? Object.fromEntries(Object.entries(r).map(([k, v]) => [k.toUpperCase(), v])) : r);
  return {
    dialect, from: 'S.T t', key: 't."ID"',
    async run(sql) {
      sqls.push(sql);
      const agg = /\(t\."ID" - (-?\d+)\) \/ (\d+)/.exec(sql);
      const between = /WHERE t\."ID" BETWEEN (-?\d+) AND (-?\d+) GROUP BY/.exec(sql);
      if (agg && between) {
        const [min, width, lo, hi] = [agg[1], agg[2], between[1], between[2]].map(Number);
        const by = new Map<number, { n: number; s: bigint }>();
        for (const k of keys) {
          if (k < lo || k > hi) continue;
          const b = Math.floor((k - min) / width);
          const x = by.get(b) ?? { n: 0, s: 0n };
          x.n++; x.s += BigInt(k); by.set(b, x);
        }
        return [...by].map(([b, x]) => up({ b: String(b), n: String(x.n), s: String(x.s) }));
      }
      const ranges = [...sql.matchAll(/t\."ID" BETWEEN (-?\d+) AND (-?\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
      return keys.filter((k) => ranges.some(([a, z]) => k >= a && k <= z)).map((k) => up({ k: String(k) }));
    },
  };
}

describe('deleted integer keys by key ranges', () => {
  for (const dialect of ['postgres', 'oracle'] as const) {
    it(`${dialect}: finds exactly the lake keys the source lost; new source keys and untouched ranges are not read`, async () => {
      const lake = Float64Array.from({ length: 2000 }, (_, i) => i * 3 - 600); // -600 … 5397, sparse
      const gone = new Set([-600, -3, 0, 999, 5397]);
      const source = [...lake].filter((k) => !gone.has(k)).concat([6000, 6003, 1]); // inserts: above the lake's range and between its keys
      const sqls: string[] = [];
      const r = await deletedIntKeys(fakeSource(dialect, source, sqls), lake);
      expect(r.keys.sort((a, b) => a - b)).toEqual([...gone].sort((a, b) => a - b));
      expect(sqls).toHaveLength(2); // one aggregate, one key read of the differing ranges
      expect(sqls[0]).toContain(dialect === 'postgres' ? '::bigint' : 'FLOOR(');
      // only ranges around the changes are read key by key: a few of the ~32 ranges
      expect((sqls[1].match(/BETWEEN/g) ?? []).length).toBeLessThanOrEqual(6);
    });
  }

  it('an empty lake partition needs no query; a lake key duplicated is reported once', async () => {
    const sqls: string[] = [];
    expect(await deletedIntKeys(fakeSource('postgres', [1, 2], sqls), new Float64Array(0))).toEqual({ keys: [], sourceKeys: 0 });
    expect(sqls).toEqual([]);
    const r = await deletedIntKeys(fakeSource('postgres', [1, 3], sqls), Float64Array.from([1, 2, 2, 3]));
    expect(r.keys).toEqual([2]);
  });
});
