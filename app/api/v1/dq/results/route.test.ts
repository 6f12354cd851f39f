// GET /api/v1/dq/results against a real migrated Postgres: auth, filters, validation.
import { describe, expect, it } from 'vitest';
import { writeDqResults } from '@/lib/dq/results';
import type { DqResult } from '@/lib/dq/result';
import * as route from './route';
import { useRouteServer } from '../../test-server';

const BASE = 'http://127.0.0.1:8765';
const fx = useRouteServer({
  name: 'dq-api', roles: ['viewer'],
  seed: async ({ db }) => {
    await writeDqResults(db.pool, [
      row({}), row({ branch: 'b1', status: 'MISMATCH', hashMismatch: 1, hashTotalDelta: 1, exampleKeys: { hash_mismatch: [{ key: { ID: '7' }, columns: ['A'] }] } }),
    ]);
    await writeDqResults(db.pool, [row({ pipelineRunId: 'dq-2', status: 'ERROR', errorDetails: 'dq: cannot reach branch b0' })]);
  },
});

const get = async (query: string, auth = true) => {
  const res = await route.GET(new Request(`${BASE}/api/v1/dq/results${query}`, { headers: auth ? { authorization: `Bearer ${fx.tok.viewer}` } : {} }), { params: Promise.resolve({}) });
  return { status: res.status, body: await res.json() };
};
const row = (o: Partial<DqResult>): DqResult => ({
  pipelineRunId: 'dq-1', table: 'orders', branch: 'b0', windowStart: '2026-01-01', windowEnd: '2026-06-01 00:00:00', windowNote: null, lakeSnapshotId: '42',
  oracleRowCount: 10, icebergRowCount: 10, rowCountDelta: 0, hashMatched: 10, hashOnlyInOracle: 0, hashOnlyInIceberg: 0, hashMismatch: 0, hashTotalDelta: 0,
  hashColumns: ['A', 'ID'], columnsOnlyInOracle: [], columnsOnlyInIceberg: ['EMAIL'], exampleKeys: null, repair: null, status: 'OK', errorDetails: null,
  checkedAt: new Date(), ...o,
});

describe('GET /api/v1/dq/results', () => {
  it('needs authentication', async () => {
    expect((await get('', false)).status).toBe(401);
  });
  it('lists newest first with the seed columns, filtered by run, status and latest', async () => {
    const all = await get('');
    expect(all.status).toBe(200);
    expect(all.body.results.map((r: { pipeline_run_id: string }) => r.pipeline_run_id)).toEqual(['dq-2', 'dq-1', 'dq-1']);
    const mm = await get('?run=dq-1&status=MISMATCH');
    expect(mm.body.results).toHaveLength(1);
    expect(mm.body.results[0]).toMatchObject({ branch_id: 'b1', hash_mismatch: 1, hash_only_in_oracle: 0, columns_only_in_iceberg: ['EMAIL'], example_keys: { hash_mismatch: [{ key: { ID: '7' }, columns: ['A'] }] } });
    const latest = await get('?latest=true');
    expect(latest.body.results.map((r: { status: string }) => r.status)).toEqual(['ERROR']);
  });
  it('rejects bad filters with the field named', async () => {
    const r = await get('?status=FINE');
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('query.status');
  });
});
