import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import type { Lake } from '../lake';
import type { StagedFile } from './staging';

/**
 * A fanned-out unit on an object-store warehouse hands its coordinator, on
 * any machine, files it can read: each staged file is uploaded (multipart when
 * large) under the table's own data folder, as a distributed Iceberg writer's
 * tasks do, and its local copy removed. A full replace then adopts them where
 * they are; a merge reads them and deletes them. An attempt whose files are
 * never committed (its coordinator died) leaves orphans that
 * `tributary lake remove-orphans` deletes once they are old enough.
 */
export async function uploadUnitFiles(lake: Lake, ident: string, files: StagedFile[], signal?: AbortSignal): Promise<StagedFile[]> {
  const location = (await lake.loadTable(ident)).location;
  const out: StagedFile[] = [];
  for (const f of files) {
    signal?.throwIfAborted();
    if (f.batches) throw new Error('etl: a fanned-out unit stages files; rows held in memory cannot travel');
    const dest = `${location}/data/etl-${crypto.randomUUID()}.parquet`;
    await lake.storage.write(dest, new Uint8Array(await fs.readFile(f.path)));
    await fs.rm(f.path, { force: true });
    out.push({ path: dest, rows: f.rows, bytes: f.bytes });
  }
  return out;
}
