/**
 * One spelling per stored file, to compare a listed object with the paths
 * metadata records. The same file is written many ways: the lake records
 * `file:///a%20b/x` (pathToFileURL), adopt may record `file:///a b/x` or a bare
 * `/a b/x`, Hadoop-style writers `file:/a b/x`, and other engines `s3a://` or
 * `s3n://` for `s3://` (Iceberg's DeleteOrphanFiles treats s3, s3a and s3n as
 * equal schemes). The key drops the scheme and percent-encoding and collapses
 * repeated slashes: looser is safe here, since a wrongly matched key only keeps
 * a file that could have gone.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const decode = (s: string) => {
  if (!s.includes('%')) return s;
  try { return decodeURIComponent(s); } catch { return s; } // a stray % is part of the name
};

/** `file:///a%20b/x`, `file:/a b/x`, `/a b/x` → `/a b/x`; `s3a://bucket/k` → `bucket/k`. */
export function uriKey(uri: string): string {
  if (uri.startsWith('/')) return path.posix.normalize(decode(uri));
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/.exec(uri);
  if (!m) return uri;
  const rest = m[2];
  if (m[1].toLowerCase() === 'file') {
    try { return path.posix.normalize(fileURLToPath(uri)); } catch { /* file://host/…: the path part below */ }
  }
  // scheme://authority/path (s3, s3a, s3n, gs, abfs…), or scheme:/path
  const body = rest.startsWith('//') ? rest.slice(2) : rest;
  return decode(body).replace(/\/{2,}/g, '/');
}

/** Whether `uri` lies strictly below the folder `location` (both compared by key). */
export function isUnder(uri: string, location: string): boolean {
  const root = uriKey(location).replace(/\/+$/, '');
  return uriKey(uri).startsWith(`${root}/`);
}
