import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineJob } from './types';
import { VERSION } from './version';

/**
 * `system.check`: proves the path web → queue → worker → database end to end.
 * Checks the database answers, the data folder is writable, and reports the
 * worker's version.
 */
export const systemCheck = defineJob({
  kind: 'system.check',
  description: 'Check the database, the data folder and the worker (end-to-end probe)',
  payload: z.object({
    holdSeconds: z.number().int().min(0).max(3600).default(0).describe('Seconds to keep running, for testing cancel and worker loss. (Default: 0)'),
  }).strict(),
  async run(ctx, p) {
    ctx.progress(0, 3);
    const t0 = Date.now();
    const r = await ctx.pool.query('select version() as v, now() as now');
    ctx.logger.info('database reachable', { server: String(r.rows[0].v).split(' on ')[0], ms: Date.now() - t0 });
    ctx.progress(1);
    await fs.mkdir(ctx.env.dataDir, { recursive: true });
    const probe = path.join(ctx.env.dataDir, `.write-probe-${ctx.runId}`);
    await fs.writeFile(probe, 'ok');
    await fs.rm(probe);
    ctx.logger.info('data folder writable', { dataDir: ctx.env.dataDir });
    ctx.progress(2);
    for (let i = 0; i < p.holdSeconds; i++) {
      if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('cancelled');
      await new Promise((res) => setTimeout(res, 1000));
    }
    ctx.logger.info('worker', { version: VERSION, node: process.version, pid: process.pid });
    ctx.progress(3);
    return { database: 'ok', dataDir: ctx.env.dataDir, workerVersion: VERSION };
  },
});

export const systemJobs = [systemCheck];
