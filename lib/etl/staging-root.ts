import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where a fanned-out run's units stage their Parquet so that its coordinator,
 * on any machine, can read it: under the warehouse (`<warehouse>/_staging`),
 * which every worker shares. The data folder's `staging` is per machine; it is
 * used only for a warehouse that is not a file system path this build can
 * write Parquet to directly (then every worker must share that data folder).
 */
export function fanoutStagingRoot(env: { warehouse: string; dataDir: string }): string {
  if (env.warehouse.startsWith('file:')) return path.join(fileURLToPath(env.warehouse), '_staging');
  if (env.warehouse.startsWith('/')) return path.join(env.warehouse, '_staging');
  return path.join(env.dataDir, 'staging');
}
