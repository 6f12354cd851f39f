import { z } from 'zod';
import { defineJob } from '../jobs/types';

const table = z.string().min(3).regex(/^[^.]+(\.[^.]+)+$/, 'namespace.table');

/** Lake maintenance jobs, run by the worker (scheduled by flows or started from the panel/CLI). */
export const lakeJobs = [
  defineJob({
    kind: 'lake.expire',
    description: 'Expire old snapshots of a lake table and delete the files no kept snapshot references',
    role: 'operator',
    payload: z.object({ table, maxSnapshotAgeMs: z.number().int().positive().optional(), minSnapshotsToKeep: z.number().int().min(1).optional() }),
    async run(ctx, p) {
      const { openLake } = await import('./index');
      const lake = openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, logger: ctx.logger });
      const t = await lake.loadTable(p.table);
      ctx.progress(0, 1);
      const r = await t.expireSnapshots({ maxSnapshotAgeMs: p.maxSnapshotAgeMs, minSnapshotsToKeep: p.minSnapshotsToKeep });
      ctx.progress(1, 1);
      return { expiredSnapshots: r.expiredSnapshots, deletedFiles: r.deletedFiles.length };
    },
  }),
  defineJob({
    kind: 'lake.compact',
    description: 'Rewrite a lake table (or one partition) into files of the target size, folding delete files in',
    role: 'operator',
    payload: z.object({ table, partition: z.record(z.string(), z.union([z.string(), z.number()])).optional() }),
    async run(ctx, p) {
      const { openLake } = await import('./index');
      const lake = openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, logger: ctx.logger });
      const t = await lake.loadTable(p.table);
      ctx.progress(0, 1);
      const r = await t.compact({ partition: p.partition });
      ctx.progress(1, 1);
      return { snapshotId: r.snapshotId === null ? null : String(r.snapshotId), removedFiles: r.removedFiles, addedFiles: r.addedDataFiles };
    },
  }),
];
