'use client';
import { failedUnits, runWarnings } from './run-summary';

/** A run's warnings as badges ("nothing to do: …"): a success that did nothing says so. */
export function RunWarnings({ result }: { result: unknown }) {
  const w = runWarnings({ result });
  if (!w.length) return null;
  return (
    <span data-testid="run-warnings">
      {w.map((x) => <span key={x} className="chip" title={x} style={{ background: '#fffbeb', borderColor: '#f5d97a', color: '#93370d' }}>⚠ {x}</span>)}
    </span>
  );
}

/** The units that failed, from the per-unit result a failed run keeps. */
export function FailedUnits({ result }: { result: unknown }) {
  const bad = failedUnits({ result });
  if (!bad.length) return null;
  return (
    <div className="error-box" data-testid="failed-units">
      <strong>{bad.length} unit{bad.length === 1 ? '' : 's'} did not succeed</strong>
      <table className="table">
        <thead><tr><th>Table</th><th>Branch</th><th>Status</th><th>Error</th></tr></thead>
        <tbody>
          {bad.slice(0, 50).map((u, i) => (
            <tr key={i}><td className="mono">{String(u.table ?? '')}</td><td>{String(u.branch ?? '')}</td><td>{String(u.status ?? '')}</td><td className="wrap">{String(u.error ?? '').split('\n')[0]}</td></tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
