'use client';
import { checkSchedule, describeCron, formatInZone, nextFireTimes } from '@/lib/flows/schedule';

const ZONES: string[] = (() => {
  try { return (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone'); } catch { return ['UTC']; }
})();

/**
 * Cron + IANA zone inputs with the schedule in words and the next five fire
 * times in the zone and in UTC, computed in the browser with the same code
 * the scheduler uses (lib/flows/schedule.ts).
 */
export function ScheduleFields({ cron, timezone, onCron, onTimezone }: { cron: string; timezone: string; onCron(v: string): void; onTimezone(v: string): void }) {
  const problem = cron.trim() ? checkSchedule(cron, timezone) : null;
  const fires = cron.trim() && !problem ? nextFireTimes(cron, timezone, new Date(), 5) : [];
  return (
    <div className="schedule-fields">
      <label className="field">
        <span>Cron (minute hour day-of-month month day-of-week)</span>
        <input name="cron" value={cron} onChange={(e) => onCron(e.target.value)} placeholder="empty: no schedule — e.g. 30 2 * * *" aria-invalid={problem?.field === 'cron'} spellCheck={false} />
      </label>
      <label className="field">
        <span>Time zone (IANA)</span>
        <input name="timezone" value={timezone} onChange={(e) => onTimezone(e.target.value)} list="tz-list" aria-invalid={problem?.field === 'timezone'} spellCheck={false} />
        <datalist id="tz-list">{ZONES.map((z) => <option key={z} value={z} />)}</datalist>
      </label>
      {problem ? (
        <p className="form-error" role="alert" data-testid="schedule-problem"><strong>{problem.field}: </strong>{problem.message}</p>
      ) : cron.trim() ? (
        <div data-testid="schedule-preview">
          <p className="small"><strong>{describeCron(cron)}</strong> <span className="muted">({timezone})</span></p>
          <p className="small muted">Next fires — in {timezone} · in UTC:</p>
          <ol className="fire-list">
            {fires.map((d) => <li key={d.toISOString()}>{formatInZone(d, timezone)} · {d.toISOString().replace('T', ' ').slice(0, 16)} UTC</li>)}
          </ol>
        </div>
      ) : <p className="small muted">No schedule: the flow runs only when started.</p>}
    </div>
  );
}
