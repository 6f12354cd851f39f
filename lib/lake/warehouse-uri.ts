import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AppError } from '../errors';

// Its own file (re-exported by storage.ts): catalog-tables.ts checks a warehouse without loading the S3 SDK.

/** Normalise a warehouse given as `file:///abs` or `/abs` to a `file://` URI without trailing slash. */
export function normaliseWarehouse(warehouse: string): string {
  if (warehouse.startsWith('file://')) return pathToFileURL(fileURLToPath(warehouse)).href.replace(/\/+$/, '');
  if (warehouse.startsWith('s3://') || warehouse.startsWith('s3a://')) return warehouse.replace(/\/+$/, '');
  if (!path.isAbsolute(warehouse)) throw new AppError('validation', `lake: warehouse must be an absolute path or file:// URI, got ${warehouse}`);
  return pathToFileURL(warehouse).href.replace(/\/+$/, '');
}
