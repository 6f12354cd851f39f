import path from 'node:path';
import { AppError } from '../errors';

/** S3 settings for `icebergS3(...)`. (Default: none — the server's own credentials) */
export interface S3Settings {
  /** Endpoint for path-style URLs (MinIO, Ceph…). (Default: virtual-hosted AWS `https://<bucket>.s3[.<region>].amazonaws.com`) */
  endpoint?: string;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /**
   * A ClickHouse named collection holding the keys: rendered as `icebergS3(<name>, url = '…')`,
   * so the keys appear in no rendered SQL (model results, compile previews, view definitions).
   * (Default: none — the keys, when set, are passed inline)
   */
  collection?: string;
}

/**
 * How a target reaches the lake's files:
 * - `relative`: embedded chdb, which reads only below its working directory —
 *   `icebergLocal('<location relative to cwd>')`, refused when outside it;
 * - `absolute`: the table folder as an absolute path — the embedded chdb
 *   (its process started in the warehouse folder, `within`: refused outside
 *   it), or a ClickHouse server reading its own filesystem, with the warehouse
 *   root optionally re-rooted at `serverWarehouse` (the same folder as that
 *   server sees it, e.g. a mount below its user_files).
 */
export type LakeAccess =
  | { mode: 'relative'; cwd: string; s3?: S3Settings }
  | { mode: 'absolute'; warehouse?: string; serverWarehouse?: string; within?: string; s3?: S3Settings };

/** A ClickHouse string literal. */
export const lit = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * What `renderSource` reads for one lake location (file:// or s3://): a folder
 * for `icebergLocal` (relative to the cwd, or absolute for a server), or an
 * object-store URL for `icebergS3`. The SQL allow-list uses the same function
 * on the warehouse root, so it allows exactly what Tributary itself renders.
 */
export type LakeRead =
  | { fn: 'icebergLocal'; path: string }
  | { fn: 'icebergS3'; url: string; collection?: string; keys?: [string, string] };

export function lakeRead(location: string, access: LakeAccess): LakeRead {
  if (location.startsWith('s3://') || location.startsWith('s3a://')) {
    const u = new URL(location.replace(/^s3a:/, 's3:'));
    const bucket = u.hostname; const key = u.pathname.replace(/^\/+/, '').replace(/\/?$/, '/');
    const s3 = access.s3 ?? {};
    const url = s3.endpoint
      ? `${s3.endpoint.replace(/\/+$/, '')}/${bucket}/${key}`
      : `https://${bucket}.s3${s3.region ? `.${s3.region}` : ''}.amazonaws.com/${key}`;
    if (s3.collection) return { fn: 'icebergS3', url, collection: s3.collection };
    return { fn: 'icebergS3', url, ...(s3.accessKeyId && s3.secretAccessKey ? { keys: [s3.accessKeyId, s3.secretAccessKey] as [string, string] } : {}) };
  }
  const abs = location.startsWith('file://') ? decodeURIComponent(new URL(location).pathname) : location;
  if (!path.isAbsolute(abs)) throw new AppError('validation', `models: lake table location ${location} is neither file:// nor s3://`);
  if (access.mode === 'relative') {
    const rel = path.relative(access.cwd, abs);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new AppError('validation', `models: the embedded ClickHouse reads files only below its working directory ${access.cwd}, and the lake table folder ${abs} is outside it; start the worker/CLI from a folder containing the warehouse (TRIBUTARY_DATA_DIR under it) or use a ClickHouse server target`);
    }
    return { fn: 'icebergLocal', path: rel || '.' };
  }
  if (access.within) {
    const rel = path.relative(access.within, abs);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new AppError('validation', `models: the embedded ClickHouse reads files only below the warehouse folder ${access.within}, and the lake table folder ${abs} is outside it; move the table into the warehouse or use a ClickHouse server target`);
    }
  }
  let p = abs;
  if (access.serverWarehouse && access.warehouse) {
    const root = access.warehouse.startsWith('file://') ? decodeURIComponent(new URL(access.warehouse).pathname) : access.warehouse;
    const rel = path.relative(root, abs);
    if (!rel.startsWith('..')) p = path.posix.join(access.serverWarehouse, rel.split(path.sep).join('/'));
  }
  return { fn: 'icebergLocal', path: p };
}

/** The ClickHouse table function reading one lake table at `location` (file:// or s3://). */
export function renderSource(location: string, access: LakeAccess): string {
  const r = lakeRead(location, access);
  if (r.fn === 'icebergLocal') return `icebergLocal(${lit(r.path)})`;
  if (r.collection) return `icebergS3(${r.collection}, url = ${lit(r.url)})`;
  return `icebergS3(${lit(r.url)}${r.keys ? `, ${lit(r.keys[0])}, ${lit(r.keys[1])}` : ''})`;
}
