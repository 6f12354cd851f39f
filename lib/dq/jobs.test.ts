import { describe, expect, it } from 'vitest';
import { dqJobs } from './jobs';
import { DqRequest as DqRunPayload } from './request';

describe('dq.run job', () => {
  it('is defined with the CLI parameters as payload', () => {
    expect(dqJobs.map((j) => j.kind)).toEqual(['dq.run']);
    expect(DqRunPayload.parse({ branch: 'a,b', since: '2026-01-01' })).toMatchObject({ branch: ['a', 'b'], tables: [], hash: true, write: true, repair: false, since: '2026-01-01' });
    expect(DqRunPayload.safeParse({ repair: true, hash: false }).success).toBe(false);
    expect(DqRunPayload.safeParse({ since: '2026-02-30' }).success).toBe(false);
    expect(DqRunPayload.safeParse({ bogus: 1 }).success).toBe(false);
  });
});
