import path from 'node:path';
import type { LakeTable } from '../lake';
import { installFileFetch } from '../lake/test-helpers';

/**
 * Test-only readers of lake tables by independent engines: ClickHouse
 * (chdb `icebergLocal`, path relative to the cwd as chdb requires) and icebird
 * (through a `fetch` that serves file:// URLs).
 */
export function chdbRows(t: LakeTable, select: (from: string) => string): Record<string, unknown>[] {
  return chdbRowsAt(new URL(t.location).pathname, select);
}

export function chdbRowsAt(dir: string, select: (from: string) => string): Record<string, unknown>[] {
  const rel = path.relative(process.cwd(), dir);
  const sql = select(`icebergLocal('${rel}')`);
  return chdbQuery(sql);
}

let chdbMod: { query(sql: string, fmt: string): string } | null = null;
export function chdbQuery(sql: string): Record<string, unknown>[] {
  if (!chdbMod) throw new Error('call loadChdb() first');
  const out = chdbMod.query(sql, 'JSONEachRow');
  return out.trim() ? out.trim().split('\n').map((l) => JSON.parse(l)) : [];
}

export async function loadChdb(): Promise<void> {
  chdbMod = (await import('chdb')) as unknown as { query(sql: string, fmt: string): string };
}

export async function icebirdRows(t: LakeTable): Promise<Record<string, unknown>[]> {
  installFileFetch();
  const { icebergRead } = await import('icebird');
  const name = t.metadataLocation().slice(t.metadataLocation().lastIndexOf('/') + 1);
  return icebergRead({ tableUrl: t.location, metadataFileName: name }) as Promise<Record<string, unknown>[]>;
}

/** Canonical text of a value so Postgres `::text` and ClickHouse `toString` compare equal. */
export function norm(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  let s = typeof v === 'string' ? v : String(v);
  const ts = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?(\+00(:00)?|Z)?$/.exec(s);
  if (ts) {
    const frac = (ts[3] ?? '').replace(/0+$/, '');
    return `${ts[1]} ${ts[2]}${frac === '.' ? '' : frac}`;
  }
  if (/^-?\d+\.\d+$/.test(s)) { s = s.replace(/0+$/, '').replace(/\.$/, ''); return s === '-0' ? '0' : s; }
  return s;
}

/**
 * Rows of a lake table read through the lake itself, as sorted canonical JSON
 * strings without the load-time columns (`insert_at`, `Recorded_updated_at`:
 * they differ between two runs of the same load); bigints as decimal text,
 * bytes as hex. Two lakes loaded alike compare equal this way.
 */
export async function lakeRowsWithoutLoadTimes(t: LakeTable): Promise<string[]> {
  const out: string[] = [];
  for await (const b of t.scan()) {
    for (const r of b) {
      const o = r!.toJSON() as Record<string, unknown>;
      delete o.insert_at; delete o.Recorded_updated_at;
      out.push(JSON.stringify(o, (_k, v) => (typeof v === 'bigint' ? String(v) : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)));
    }
  }
  return out.sort();
}
