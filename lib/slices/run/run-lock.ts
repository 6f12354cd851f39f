import os from 'node:os';
import type pg from 'pg';
import { AppError } from '../../errors';

/** Advisory-lock class of the run lock; the run id is the second key. */
export const RUN_LOCK_CLASS = 74_131;

/**
 * A refused run (held lock, fresh-run guard): an `AppError('conflict')`, so
 * the CLI exits 3 and the API answers 409.
 */
export function runRefused(message: string): AppError {
  return new AppError('conflict', message);
}

export interface RunLock { holder: string; release(): Promise<void> }

/**
 * Take the run lock: a session advisory lock on (RUN_LOCK_CLASS, runId) held by
 * a dedicated connection for the run's lifetime, so it holds across machines
 * and dies with the process (kill -9 closes the socket, the server frees it).
 * A second orchestrator is refused with who holds it.
 */
export async function acquireRunLock(pool: pg.Pool, runId: number): Promise<RunLock> {
  const client = await pool.connect();
  const holder = `${os.hostname()} pid ${process.pid} since ${new Date().toISOString()}`;
  try {
    const r = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [RUN_LOCK_CLASS, runId]);
    if (!r.rows[0].ok) {
      const who = await describeLockHolder(pool, runId);
      throw runRefused(`slices: run ${runId} is already running (locked by ${who}); refusing a second orchestrator`);
    }
    await client.query(`insert into slice_runs (run_id, lock_holder) values ($1, $2)
                        on conflict (run_id) do update set lock_holder = $2, updated_at = now()`, [runId, holder]);
  } catch (e) {
    client.release();
    throw e;
  }
  let released = false;
  return {
    holder,
    release: async () => {
      if (released) return;
      released = true;
      try {
        await client.query('update slice_runs set lock_holder = null where run_id = $1', [runId]);
        await client.query('select pg_advisory_unlock($1, $2)', [RUN_LOCK_CLASS, runId]);
        client.release();
      } catch (e) {
        client.release(e as Error);
      }
    },
  };
}

/** Who holds a run's lock: the stored holder plus the server's view of the session. */
export async function describeLockHolder(pool: pg.Pool, runId: number): Promise<string> {
  const r = await pool.query(
    `select a.pid, a.application_name, host(a.client_addr) as addr, a.backend_start, s.lock_holder
       from pg_locks l join pg_stat_activity a on a.pid = l.pid
       left join slice_runs s on s.run_id = $2
      where l.locktype = 'advisory' and l.classid = $1 and l.objid = $2 and l.objsubid = 2 and l.granted
        and l.database = (select oid from pg_database where datname = current_database())`,
    [RUN_LOCK_CLASS, runId],
  );
  if (!r.rows.length) return 'nobody';
  const x = r.rows[0];
  return `${x.lock_holder ?? 'unknown process'} (server session ${x.pid}, ${x.application_name || 'no name'}${x.addr ? ' from ' + x.addr : ''})`;
}

/** Whether some session holds the run lock (board/status show it). */
export async function isRunLocked(pool: pg.Pool, runId: number): Promise<boolean> {
  // Advisory locks belong to one database, but pg_locks lists the whole server's: another
  // database's run of the same id (another Tributary, a test) must not read as this one's.
  const r = await pool.query(`select 1 from pg_locks where locktype = 'advisory' and classid = $1 and objid = $2 and objsubid = 2 and granted
                                and database = (select oid from pg_database where datname = current_database())`, [RUN_LOCK_CLASS, runId]);
  return r.rowCount! > 0;
}
