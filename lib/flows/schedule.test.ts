import { describe, expect, it } from 'vitest';
import { checkSchedule, describeCron, fireTimesBetween, formatInZone, isValidTimeZone, latestFireAtOrBefore, nextFireTimes } from './schedule';

const iso = (ds: Date[]) => ds.map((d) => d.toISOString());

describe('cron validation', () => {
  it('accepts 5-field expressions in known zones', () => {
    expect(checkSchedule('*/15 2-4 * * 1-5', 'Europe/Berlin')).toBeNull();
    expect(checkSchedule('0 0 1 1 *', 'UTC')).toBeNull();
  });
  it('names the field and says what is wrong', () => {
    expect(checkSchedule('61 * * * *', 'UTC')).toMatchObject({ field: 'cron', message: expect.stringMatching(/minute/) });
    expect(checkSchedule('* * * *', 'UTC')).toMatchObject({ field: 'cron', message: expect.stringMatching(/5 fields.*got 4/) });
    expect(checkSchedule('0 0 * * * *', 'UTC')).toMatchObject({ field: 'cron', message: expect.stringMatching(/got 6/) });
    expect(checkSchedule('', 'UTC')).toMatchObject({ field: 'cron' });
    expect(checkSchedule('0 0 31 2 *', 'UTC')).toMatchObject({ field: 'cron', message: expect.stringMatching(/never/) });
    expect(checkSchedule('0 0 * * *', 'Mars/Olympus')).toMatchObject({ field: 'timezone', message: expect.stringMatching(/unknown time zone/) });
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('EST5EDTX')).toBe(false);
  });
  it("refuses Quartz's extensions a crontab does not read (croner alone accepts them), naming the field; keeps names and steps", () => {
    expect(checkSchedule('0 0 L * *', 'UTC')).toMatchObject({ field: 'cron', message: expect.stringMatching(/^day-of-month field: 'L' is not cron syntax/) });
    expect(checkSchedule('0 0 ? * *', 'UTC')).toMatchObject({ field: 'cron', message: expect.stringMatching(/day-of-month field: '\?'/) });
    expect(checkSchedule('0 0 1W * *', 'UTC')).toMatchObject({ field: 'cron', message: expect.stringMatching(/day-of-month field: '1W'/) });
    expect(checkSchedule('0 0 * * 5#3', 'UTC')).toMatchObject({ field: 'cron', message: expect.stringMatching(/day-of-week field: '5#3'/) });
    expect(checkSchedule('0 0 * * 5L', 'UTC')).toMatchObject({ field: 'cron', message: expect.stringMatching(/day-of-week field/) });
    expect(checkSchedule('mon * * * *', 'UTC')).toMatchObject({ field: 'cron', message: expect.stringMatching(/^minute field: 'mon'/) });
    expect(checkSchedule('0,30 */2 1-15/3 jan-mar,DEC mon-fri', 'UTC')).toBeNull();
    expect(checkSchedule('0 0 * * 7', 'UTC')).toBeNull();
  });
  it('explains a schedule in words', () => {
    expect(describeCron('30 2 * * 1-5')).toMatch(/02:30.*Monday through Friday/);
    expect(describeCron('*/5 * * * *')).toMatch(/Every 5 minutes/);
  });
});

describe('fire times across DST', () => {
  it('Europe/Berlin spring forward: 02:30 does not exist on 29 March 2026 and fires at 03:00 CEST', () => {
    const fires = nextFireTimes('30 2 * * *', 'Europe/Berlin', new Date('2026-03-27T12:00:00Z'), 4);
    expect(iso(fires)).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET (UTC+1)
      '2026-03-29T01:00:00.000Z', // the gap: first valid minute after it, 03:00 CEST
      '2026-03-30T00:30:00.000Z', // 02:30 CEST (UTC+2)
      '2026-03-31T00:30:00.000Z',
    ]);
    expect(formatInZone(fires[1], 'Europe/Berlin')).toBe('2026-03-29 03:00 (GMT+2)');
  });
  it('Europe/Berlin fall back: 02:30 happens twice on 25 October 2026 and fires once', () => {
    const fires = nextFireTimes('30 2 * * *', 'Europe/Berlin', new Date('2026-10-24T12:00:00Z'), 3);
    expect(iso(fires)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z', '2026-10-27T01:30:00.000Z']);
  });
  it('Europe/Berlin hourly keeps UTC spacing of one hour through the change', () => {
    const fires = fireTimesBetween('0 * * * *', 'Europe/Berlin', new Date('2026-03-29T00:30:00Z'), new Date('2026-03-29T03:30:00Z'));
    expect(iso(fires)).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-29T02:00:00.000Z', '2026-03-29T03:00:00.000Z']);
  });
  it('America/New_York: 09:00 weekdays stays 09:00 local across 8 March and 1 November 2026', () => {
    const spring = nextFireTimes('0 9 * * 1-5', 'America/New_York', new Date('2026-03-05T00:00:00Z'), 3);
    expect(iso(spring)).toEqual(['2026-03-05T14:00:00.000Z', '2026-03-06T14:00:00.000Z', '2026-03-09T13:00:00.000Z']);
    const fall = nextFireTimes('0 9 * * 1-5', 'America/New_York', new Date('2026-10-30T00:00:00Z'), 2);
    expect(iso(fall)).toEqual(['2026-10-30T13:00:00.000Z', '2026-11-02T14:00:00.000Z']);
  });
  it('America/New_York: 02:30 is skipped into 03:00 EDT on 8 March, 01:30 fires once on 1 November', () => {
    expect(iso(nextFireTimes('30 2 * * *', 'America/New_York', new Date('2026-03-07T12:00:00Z'), 2)))
      .toEqual(['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
    expect(iso(nextFireTimes('30 1 * * *', 'America/New_York', new Date('2026-10-31T12:00:00Z'), 2)))
      .toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });
  it('the latest fire at or before a moment includes that moment', () => {
    expect(latestFireAtOrBefore('* * * * *', 'UTC', new Date('2026-01-01T10:05:00Z'))?.toISOString()).toBe('2026-01-01T10:05:00.000Z');
    expect(latestFireAtOrBefore('0 9 * * *', 'Europe/Berlin', new Date('2026-01-01T07:59:59Z'))?.toISOString()).toBe('2025-12-31T08:00:00.000Z');
  });
});
