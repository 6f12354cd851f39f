/**
 * Lake maintenance jobs, run by the worker (scheduled by flows or started from
 * the panel, the API or the CLI). Payload schemas are pure zod; the lake is
 * loaded only when a job runs, so the web process validates without it.
 */
import { z } from 'zod';
import { defineJob, type JobContext } from '../jobs/types';
import type { LakeTable } from '../lake';
import { ExpireRequest, RemoveOrphansRequest, tableField as table } from './request';

/** Load the lake (only now) and the payload's table, run `fn` as the job's one unit of progress. */
async function onTable<T>(ctx: JobContext, ident: string, fn: (t: LakeTable) => Promise<T>): Promise<T> {
  const { openLake } = await import('../lake');
  const t = await openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3, logger: ctx.logger }).loadTable(ident);
  ctx.progress(0, 1);
  const r = await fn(t);
  ctx.progress(1, 1);
  return r;
}

export const lakeJobs = [
  defineJob({
    kind: 'lake.expire',
    description: 'Expire old snapshots of a lake table and delete the files no kept snapshot references',
    role: 'operator',
    payload: ExpireRequest,
    run: (ctx, p) => onTable(ctx, p.table, async (t) => {
      const r = await t.expireSnapshots({ maxSnapshotAgeMs: p.maxSnapshotAgeMs, minSnapshotsToKeep: p.minSnapshotsToKeep });
      return { expiredSnapshots: r.expiredSnapshots, deletedFiles: r.deletedFiles.length };
    }),
  }),
  defineJob({
    kind: 'lake.compact',
    description: 'Rewrite a lake table (or one partition) into files of the target size, folding delete files in',
    role: 'operator',
    payload: z.object({
      table: table.describe('Lake table, namespace.table.'),
      partition: z.record(z.string(), z.union([z.string(), z.number()])).optional().describe('Only the partition with these values, e.g. { "day": "2026-01-31" }. (Default: every partition)'),
    }).strict(),
    run: (ctx, p) => onTable(ctx, p.table, async (t) => {
      const r = await t.compact({ partition: p.partition });
      return { snapshotId: r.snapshotId === null ? null : String(r.snapshotId), removedFiles: r.removedFiles, addedFiles: r.addedDataFiles };
    }),
  }),
  defineJob({
    kind: 'lake.remove_orphans',
    description: 'Delete files under a lake table\'s location that no metadata references and that are older than olderThan (Default: 3d); dryRun lists them',
    role: 'operator',
    payload: RemoveOrphansRequest,
    run: (ctx, p) => onTable(ctx, p.table, async (t) => {
      const { orphanSummary, removeOrphans } = await import('./remove-orphans');
      return orphanSummary(await removeOrphans(t, p));
    }),
  }),
];
