// A worker process for scheduler.test.ts: the job worker plus the flow
// scheduler, on a clock that runs `scale` times faster than the real one
// from `origin` (cron semantics unchanged, minutes pass in seconds). Prints
// `LEADER` when it takes the scheduler's lock. Not part of the product.
import { createPool } from '../db/pool';
import { createPrisma } from '../db/prisma';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import { createJobRegistry, startWorker } from '../jobs';
import { startFlowScheduler } from '../flows';
import { jobDefinitions } from '../../workers/jobs';

const [url, origin, scale, dataDir] = process.argv.slice(2);
const o = Number(origin);
const k = Number(scale);
const pool = createPool(url, { max: 8 });
const prisma = createPrisma(url, { max: 2 });
const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
const jobs = createJobRegistry(jobDefinitions);
const worker = await startWorker({ jobs, pool, env, logger: silentLogger, concurrency: 2, heartbeatMs: 300, staleAfterMs: 3000 });
const scheduler = startFlowScheduler({
  pool, url, catalog: { jobs, env }, logger: silentLogger, tickMs: 250, misfireGraceMs: 40_000,
  now: () => new Date(o + (Date.now() - o) * k),
});
let said = false;
const watch = setInterval(() => {
  if (scheduler.isLeader() && !said) { said = true; process.stdout.write('LEADER\n'); }
}, 50);
process.stdout.write('READY\n');
process.once('SIGTERM', async () => {
  clearInterval(watch);
  await scheduler.stop();
  await worker.stop({ timeoutMs: 3000 });
  await prisma.$disconnect();
  await pool.end();
  process.exit(0);
});
