/**
 * Test-only helpers for the lake: a warehouse folder inside the repo (chdb
 * reads only below the cwd), the three readers (own scan, icebird, ClickHouse
 * through chdb) and a `fetch` that serves `file://` URLs for icebird.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as arrow from 'apache-arrow';
import type pg from 'pg';
import { readAvroFile, writeAvroFile } from './avro';
import type { LakeTable } from './index';

export function makeWarehouse(): { dir: string; uri: string; remove(): void } {
  const dir = path.resolve('lib/lake', `.test-warehouse-${crypto.randomBytes(4).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true });
  return { dir, uri: `file://${dir}`, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

let installed = false;
/** Let icebird (which uses fetch) read `file://` URLs, with HEAD and Range support. */
export function installFileFetch(): void {
  if (installed) return;
  installed = true;
  const orig = globalThis.fetch;
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith('file://')) return orig(input, init);
    const p = decodeURIComponent(new URL(url).pathname);
    if (!fs.existsSync(p)) return new Response('not found', { status: 404 });
    const size = fs.statSync(p).size;
    if (init?.method === 'HEAD') return new Response(null, { status: 200, headers: { 'content-length': String(size) } });
    const range = new Headers(init?.headers).get('range');
    const buf = fs.readFileSync(p);
    if (range) {
      const m = /bytes=(\d+)-(\d*)/.exec(range)!;
      const start = Number(m[1]); const end = m[2] ? Number(m[2]) + 1 : size;
      return new Response(buf.subarray(start, end), { status: 206, headers: { 'content-length': String(end - start) } });
    }
    return new Response(buf, { status: 200, headers: { 'content-length': String(size) } });
  }) as typeof fetch;
}

export async function scanRows(t: LakeTable, opts: Parameters<LakeTable['scan']>[0] = {}): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const b of t.scan(opts)) for (const r of b) out.push(r!.toJSON());
  return out;
}

export async function icebirdRows(t: LakeTable): Promise<Record<string, unknown>[]> {
  installFileFetch();
  const { icebergRead } = await import('icebird');
  const name = t.metadataLocation().slice(t.metadataLocation().lastIndexOf('/') + 1);
  return icebergRead({ tableUrl: t.location, metadataFileName: name });
}

/** ClickHouse (chdb) over the table folder, path relative to the cwd as chdb requires. */
export async function chdbQuery(t: LakeTable, select: string): Promise<Record<string, unknown>[]> {
  const { query } = await import('chdb');
  const rel = path.relative(process.cwd(), new URL(t.location).pathname);
  const sql = select.replace(/\bT\b/, `icebergLocal('${rel}')`);
  const out = query(sql, 'JSONEachRow');
  return out.trim() ? out.trim().split('\n').map((l) => JSON.parse(l)) : [];
}

/** A batch from plain rows with an explicit schema. */
export function batchOf(schema: arrow.Schema, rows: Record<string, unknown>[]): arrow.RecordBatch {
  const children = schema.fields.map((f) => arrow.vectorFromArray(rows.map((r) => r[f.name] ?? null), f.type).data[0]);
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new arrow.RecordBatch(schema, struct);
}

/** A small branch table shared by the warehouse-parametrised tests: BRANCH_ID, id, name (every 7th null). */
export const BRANCH_SCHEMA = new arrow.Schema([
  new arrow.Field('BRANCH_ID', new arrow.Int32(), false),
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('name', new arrow.Utf8(), true),
]);
export type BranchRow = { BRANCH_ID: number; id: number; name: string | null };
export const branchRows = (branch: number, from: number, to: number, salt = ''): BranchRow[] =>
  Array.from({ length: to - from }, (_, i) => ({ BRANCH_ID: branch, id: from + i, name: (from + i) % 7 === 0 ? null : `n${from + i}${salt}` }));
export const branchBatch = (rs: BranchRow[]) => batchOf(BRANCH_SCHEMA, rs.map((r) => ({ ...r, id: BigInt(r.id) })));
/** One comparable string per row, whichever reader produced it. */
export const branchCanon = (r: Record<string, unknown>) => `${Number(r.BRANCH_ID)}|${Number(r.id)}|${r.name ?? null}`;

/** Swap each id in `map` (Tributary's id → a 64-bit one) in any bigint or string of an Avro record. */
function swapIds(v: unknown, map: Map<string, string>): unknown {
  if (typeof v === 'bigint') return map.has(String(v)) ? BigInt(map.get(String(v))!) : v;
  if (Array.isArray(v)) return v.map((x) => swapIds(x, map));
  if (v && typeof v === 'object' && !Buffer.isBuffer(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swapIds(x, map)]));
  return v;
}

/**
 * Give the table's snapshots the ids in `map` everywhere a foreign writer would have put them:
 * the metadata JSON (ids and manifest-list names), the manifest lists (header and
 * added_snapshot_id) and the manifests (entries' snapshot_id); then commit that metadata as a
 * new version in the catalog, as another writer's commit (a file:// table, catalog in `pool`).
 */
export async function giveSnapshotIds(t: LakeTable, pool: pg.Pool, map: Map<string, string>): Promise<void> {
  const dir = fileURLToPath(`${t.location}/metadata`);
  const swapText = (s: string) => { for (const [a, b] of map) s = s.split(a).join(b); return s; };
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.avro'))) {
    const f = readAvroFile(fs.readFileSync(path.join(dir, name)), name);
    const meta = Object.fromEntries(Object.entries(f.meta).filter(([k]) => !k.startsWith('avro.')).map(([k, v]) => [k, swapText(v)]));
    const bytes = writeAvroFile(f.schema, f.records.map((r) => swapIds(r, map)), meta);
    fs.rmSync(path.join(dir, name));
    fs.writeFileSync(path.join(dir, swapText(name)), bytes);
  }
  const v = Number(/v(\d+)\.metadata\.json$/.exec(t.metadataLocation())![1]) + 1;
  const loc = `${t.location}/metadata/v${v}.metadata.json`;
  fs.writeFileSync(fileURLToPath(loc), swapText(fs.readFileSync(fileURLToPath(t.metadataLocation()), 'utf8')));
  fs.writeFileSync(path.join(dir, 'version-hint.text'), String(v));
  const [ns, name] = t.ident.split('.');
  const r = await pool.query('update iceberg_tables set metadata_location = $1, previous_metadata_location = $2 where table_namespace = $3 and table_name = $4', [loc, t.metadataLocation(), ns, name]);
  if (r.rowCount !== 1) throw new Error(`giveSnapshotIds: ${t.ident} is not in the catalog`);
  await t.refresh();
}
