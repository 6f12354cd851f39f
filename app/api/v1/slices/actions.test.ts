// Board actions through the API: POST /api/v1/slices/runs/:id/actions against a
// real migrated Postgres, with real users and tokens: roles (viewers 403, clear
// for admins), strict payloads naming the field, nothing queued on a refusal,
// and the board feed telling a registered run from a started one.
import { describe, expect, it } from 'vitest';
import { createConnection } from '@/lib/connections';
import { registerSlices } from '@/lib/slices';
import * as actions from './runs/[id]/actions/route';
import * as board from './runs/[id]/board/route';
import { callRoute } from '../test-call';
import { useRouteServer } from '../test-server';

const fx = useRouteServer({
  name: 'slices-actions',
  seed: async ({ db, dataDir, secret }) => {
    await createConnection({ pool: db.pool, keys: { secret, dataDir } }, { name: 'src', kind: 'postgres', secrets: { url: 'postgres://127.0.0.1:1/none' } });
    // A run as `slices split` leaves it: registered, no executor chosen by anyone.
    await registerSlices(db.pool, { runId: 7, slices: [1, 2, 3].map((i) => ({ query: `SELECT s.* FROM public.src s WHERE s.id >= ${i} AND s.id < ${i + 1}`, target: 'public.tgt' })) });
  },
});

const call = callRoute;
const post = (who: keyof typeof fx.tok, id: number, body: unknown) => call(actions.POST, 'POST', `/api/v1/slices/runs/${id}/actions`, { token: fx.tok[who], body, params: { id: String(id) } });
const jobRuns = async () => (await fx.db.pool.query('select kind, params, created_by from job_runs order by created_at')).rows;

describe('POST /api/v1/slices/runs/:id/actions', () => {
  it('refuses viewers every action (403) and queues nothing', async () => {
    for (const action of ['run', 'reset', 'reconcile', 'clear']) {
      const r = await post('viewer', 7, { action });
      expect(r.status, action).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
    expect(await jobRuns()).toEqual([]);
  });

  it('an operator starts reset, reconcile and a native run as slices.* jobs of the path run (202)', async () => {
    const reset = await post('operator', 7, { action: 'reset', params: { includeQuarantined: true } });
    expect(reset.status).toBe(202);
    expect(reset.body).toMatchObject({ kind: 'slices.reset', status: 'queued' });
    expect((await post('operator', 7, { action: 'reconcile', params: { targetLake: 'default' } })).status).toBe(202);
    expect((await post('operator', 7, { action: 'run', params: { executor: 'native', connection: 'src' } })).status).toBe(202);
    expect(await jobRuns()).toEqual([
      { kind: 'slices.reset', params: { runId: 7, includeQuarantined: true }, created_by: 'token:olga/t' },
      { kind: 'slices.reconcile', params: { runId: 7, targetLake: 'default' }, created_by: 'token:olga/t' },
      { kind: 'slices.run', params: { runId: 7, executor: 'native', connection: 'src' }, created_by: 'token:olga/t' },
    ]);
  });

  it('clear needs an admin, as its job kind does', async () => {
    const r = await post('operator', 7, { action: 'clear' });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toMatch(/slices.clear needs the admin role/);
    const a = await post('admin', 7, { action: 'clear', params: { hard: true } });
    expect(a.status).toBe(202);
    expect((await jobRuns()).at(-1)).toMatchObject({ kind: 'slices.clear', params: { runId: 7, hard: true } });
  });

  it('bad input is a 400 naming the field, an unknown run a 404; nothing is queued', async () => {
    const before = (await jobRuns()).length;
    const cases: [unknown, string][] = [
      [{ action: 'explode' }, 'action'],
      [{ action: 'run', surprise: 1 }, 'surprise'],
      [{ action: 'run', params: { executor: 'native', bogus: true } }, 'params.bogus'],
      [{ action: 'run', params: { executor: 'fast' } }, 'params.executor'],
      [{ action: 'run', params: { targetUrl: 'postgres://u:p@h/db' } }, 'params.targetUrl'],
      [{ action: 'reconcile', params: { connection: 'nope' } }, 'params.connection'],
      [{ action: 'reset', params: { runId: 8 } }, 'params.runId'],
    ];
    for (const [body, field] of cases) {
      const r = await post('operator', 7, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.field, JSON.stringify(r.body)).toBe(field);
    }
    const missing = await post('operator', 99, { action: 'reset' });
    expect(missing.status).toBe(404);
    expect((await jobRuns()).length).toBe(before);
  });
});

describe('the board of a registered run', () => {
  it('says it has not started (so either executor may run it) and is registration 1', async () => {
    const r = await call(board.GET, 'GET', '/api/v1/slices/runs/7/board', { token: fx.tok.viewer, params: { id: '7' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ runId: 7, started: false, generation: 1, total: 3, counts: { NEW: 3 }, targetLake: null });
    await fx.db.pool.query(`update striim_orchestration set status = 'RUNNING', attempts = 1 where uniquerunid = 7 and roworder = 2`);
    const s = await call(board.GET, 'GET', '/api/v1/slices/runs/7/board', { token: fx.tok.viewer, params: { id: '7' } });
    expect(s.body.started).toBe(true);
  });
});
