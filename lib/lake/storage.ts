import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RangeBlob, readFileRange } from './range-blob.mjs';
import { s3Storage, type S3Settings } from './storage-s3';
import { normaliseWarehouse } from './warehouse-uri';

export { normaliseWarehouse };
import { AppError } from '../errors';

/**
 * Object storage behind a small interface: `file://` here, `s3://` in storage-s3.ts. Every
 * address is a full URI (`file:///abs/path`); callers never touch `fs`.
 */
export interface Storage {
  /** Read a whole object. Throws with code ENOENT when missing. */
  read(uri: string): Promise<Uint8Array>;
  /**
   * A lazily read handle on an object: range readers (Parquet footers and column chunks)
   * fetch only the bytes they touch, instead of the whole object. Throws at once when the object is missing.
   */
  blob(uri: string): Promise<Blob>;
  /** Read a byte range [start, end). */
  readRange(uri: string, start: number, end: number): Promise<Uint8Array>;
  /** Write atomically (temp file + rename); replaces an existing object. */
  write(uri: string, data: Uint8Array): Promise<void>;
  /** Create only if absent; returns false when the object already exists. */
  writeExclusive(uri: string, data: Uint8Array): Promise<boolean>;
  exists(uri: string): Promise<boolean>;
  size(uri: string): Promise<number>;
  /** Delete; a missing object is not an error. */
  delete(uri: string): Promise<void>;
  /** Every object under a prefix (recursive), as URIs. */
  list(prefix: string): Promise<string[]>;
  /**
   * Every object under a folder prefix (recursive) with its size and last-modified time, streamed
   * page by page (S3) or folder by folder (file://) so a large table's listing is never held whole.
   * On file:// only regular files: a symlink is not a file the lake wrote. Order is unspecified.
   */
  listDetailed(prefix: string): AsyncIterable<StoredObject>;
  /** The object's path on this machine, when it is a local file: another thread may then read it itself. (Absent: not local) */
  localPath?(uri: string): string;
}

/** One object as a listing reports it. */
export interface StoredObject {
  uri: string;
  size: number;
  /** Last modification, ms since the epoch (fs mtime; S3 LastModified, whole seconds). */
  modifiedAt: number;
}

/** `file:///a/b` → `/a/b` (decoding %20 etc.). */
export function uriToPath(uri: string): string {
  if (uri.startsWith('file:')) return fileURLToPath(uri);
  if (uri.startsWith('/')) return uri;
  throw new AppError('validation', `lake: unsupported storage scheme in ${uri}`);
}

export function pathToUri(p: string): string {
  return pathToFileURL(p).href;
}

/** Files at most this large are read whole by `blob` (one read instead of one per range). */
const WHOLE_READ_MAX = 1024 * 1024;

/** Storage for `file://` URIs: writes go to a temp file then rename, so readers never see half a file. */
export function fileStorage(): Storage {
  const tmpName = (p: string) => path.join(path.dirname(p), `.${path.basename(p)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  const storage: Storage = {
    async read(uri) {
      const p = uriToPath(uri);
      return new Uint8Array(await fs.readFile(/*turbopackIgnore: true*/ p));
    },
    async blob(uri) {
      // the file is stat'ed up front: a missing file fails here, not on the first slice read
      const { size } = await fs.stat(/*turbopackIgnore: true*/ uriToPath(uri));
      if (size > WHOLE_READ_MAX) return new RangeBlob((s, e) => storage.readRange(uri, s, e), 0, size);
      // a small file (an INCREMENTAL's new rows, a delete file) is read whole, once: a reader asks it for a
      // footer and a few column chunks, and each ranged read is a file opened and closed
      const bytes = await storage.read(uri);
      return new RangeBlob(async (s, e) => bytes.subarray(s, e), 0, bytes.length);
    },
    localPath: (uri) => uriToPath(uri),
    async readRange(uri, start, end) {
      const p = uriToPath(uri);
      const fh = await fs.open(/*turbopackIgnore: true*/ p, 'r');
      try { return await readFileRange(fh, start, end); } finally { await fh.close(); }
    },
    async write(uri, data) {
      const p = uriToPath(uri);
      await fs.mkdir(path.dirname(p), { recursive: true });
      const tmp = tmpName(p);
      await fs.writeFile(tmp, data);
      await fs.rename(tmp, p);
    },
    async writeExclusive(uri, data) {
      const p = uriToPath(uri);
      await fs.mkdir(path.dirname(p), { recursive: true });
      // Write the bytes to a temp file first, then link() it into place: link
      // fails with EEXIST when the name is taken, so creation is exclusive AND
      // readers never see a partially written file.
      const tmp = tmpName(p);
      await fs.writeFile(tmp, data);
      try {
        await fs.link(tmp, p);
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e;
      } finally {
        // Silence is right: after a successful link() the temp name is a second link to the same
        // file and after EEXIST it is ours alone; either way losing it only leaves a dot-file.
        await fs.unlink(tmp).catch(() => {});
      }
    },
    async exists(uri) {
      const p = uriToPath(uri);
      try { await fs.stat(/*turbopackIgnore: true*/ p); return true; } catch { return false; }
    },
    async size(uri) {
      const p = uriToPath(uri);
      return (await fs.stat(/*turbopackIgnore: true*/ p)).size;
    },
    async delete(uri) {
      const p = uriToPath(uri);
      await fs.rm(/*turbopackIgnore: true*/ p, { force: true });
    },
    async list(prefix) {
      const root = uriToPath(prefix);
      const out: string[] = [];
      const walk = async (dir: string) => {
        let entries: import('node:fs').Dirent[];
        try { entries = await fs.readdir(dir, { withFileTypes: true }); } catch { return; } // no such folder: nothing under it
        for (const e of entries) {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) await walk(p);
          else out.push(pathToUri(p));
        }
      };
      await walk(root);
      return out.sort();
    },
    async *listDetailed(prefix) {
      const pending = [uriToPath(prefix)];
      while (pending.length) {
        const dir = pending.pop()!;
        let entries: import('node:fs').Dirent[];
        try { entries = await fs.readdir(dir, { withFileTypes: true }); } catch { continue; } // no such folder: nothing under it
        for (const e of entries) {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) { pending.push(p); continue; }
          if (!e.isFile()) continue;
          let st: import('node:fs').Stats;
          try { st = await fs.lstat(/*turbopackIgnore: true*/ p); } catch { continue; } // deleted since the readdir
          yield { uri: pathToUri(p), size: st.size, modifiedAt: st.mtimeMs };
        }
      }
    },
  };
  return storage;
}

/** Pick the storage for a warehouse URI by its scheme; `s3` settings apply to `s3://` (and `s3a://`) warehouses. */
export function storageFor(warehouse: string, s3?: S3Settings): Storage {
  if (warehouse.startsWith('file://')) return fileStorage();
  if (warehouse.startsWith('s3://') || warehouse.startsWith('s3a://')) return s3Storage(s3);
  throw new AppError('validation', `lake: no storage for ${warehouse.split(':')[0]}:// warehouses (file:// and s3:// are supported)`);
}
