import { describe, expect, it } from 'vitest';
import { planFire, planOverlap } from './fire-plan';

const t = (s: string) => new Date(`2026-06-01T${s}Z`);

describe('planFire (catch-up)', () => {
  it('does nothing until a fire passes the cursor', () => {
    expect(planFire({ cursor: t('10:00:00'), latest: t('10:00:00'), now: t('10:00:30'), catchup: 'skip', graceMs: 60_000 })).toEqual({ action: 'none' });
    expect(planFire({ cursor: t('10:00:00'), latest: null, now: t('10:00:30'), catchup: 'skip', graceMs: 60_000 })).toEqual({ action: 'none' });
  });
  it('fires an on-time fire under either policy', () => {
    for (const catchup of ['skip', 'once'] as const) {
      expect(planFire({ cursor: t('10:00:00'), latest: t('10:01:00'), now: t('10:01:02'), catchup, graceMs: 60_000 }))
        .toEqual({ action: 'fire', at: t('10:01:00'), late: false });
    }
  });
  it('skips a missed fire under skip, runs it once under once', () => {
    const base = { cursor: t('06:00:00'), latest: t('10:00:00'), now: t('10:30:00'), graceMs: 60_000 };
    expect(planFire({ ...base, catchup: 'skip' })).toEqual({ action: 'skip-missed', at: t('10:00:00') });
    expect(planFire({ ...base, catchup: 'once' })).toEqual({ action: 'fire', at: t('10:00:00'), late: true });
  });
});

describe('planOverlap', () => {
  it('starts when nothing is going', () => {
    expect(planOverlap('skip', { running: 0, queued: 0 })).toEqual({ start: true });
    expect(planOverlap('queue', { running: 0, queued: 0 })).toEqual({ start: true });
  });
  it('skip drops the fire while a run goes; queue keeps exactly one waiting', () => {
    expect(planOverlap('skip', { running: 1, queued: 0 })).toMatchObject({ start: false, reason: expect.stringMatching(/overlap: skip/) });
    expect(planOverlap('queue', { running: 1, queued: 0 })).toEqual({ start: true });
    expect(planOverlap('queue', { running: 1, queued: 1 })).toMatchObject({ start: false, reason: expect.stringMatching(/already queued/) });
  });
});
