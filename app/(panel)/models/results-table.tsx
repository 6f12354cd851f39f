'use client';
import { Fragment, useState } from 'react';
import { ms, timeAgo } from '../../_components/format';
import type { NodeResult } from './types';
import css from './models.module.css';

const BADGE: Record<string, string> = { success: 'succeeded', pass: 'succeeded', error: 'failed', fail: 'failed', warn: 'cancelled', skipped: 'cancelled' };

/** Model and test outcomes: status, rows, duration; a click shows the SQL, the error and the failing rows. */
export function ResultsTable({ results, testid, showRun }: { results: NodeResult[]; testid: string; showRun?: boolean }) {
  const [open, setOpen] = useState<string | null>(null);
  if (!results.length) return <p className="empty small">No results yet.</p>;
  return (
    <table className="table" data-testid={testid}>
      <thead><tr><th>Node</th><th>Status</th><th className="right">Rows</th><th className="right">Duration</th>{showRun && <th>When</th>}</tr></thead>
      <tbody>
        {results.map((r, i) => {
          const key = `${r.runId}:${r.kind}:${r.name}:${i}`;
          return (
            <Fragment key={key}>
              <tr data-testid={`result-${r.name}`} data-status={r.status} onClick={() => setOpen(open === key ? null : key)} style={{ cursor: 'pointer' }}>
                <td><span className="muted small">{r.kind}</span> <span className="mono strong">{r.name}</span>{r.materialized && <span className="muted small"> [{r.materialized}]</span>}</td>
                <td><span className={`badge badge-${BADGE[r.status] ?? 'muted'}`}>{r.status}</span>{r.skippedBecause && <span className="muted small"> upstream {r.skippedBecause}</span>}</td>
                <td className="num right">{r.rows ?? '—'}{r.kind === 'test' && r.rows ? ' failing' : ''}</td>
                <td className="num right">{ms(r.durationMs)}</td>
                {showRun && <td className="small muted">{timeAgo(r.createdAt)} · {r.command}</td>}
              </tr>
              {(open === key || (r.failingRows?.length && r.status !== 'pass')) ? (
                <tr><td colSpan={showRun ? 5 : 4}>
                  {r.error && <pre className={css.failing}>{r.error}</pre>}
                  {r.failingRows && r.failingRows.length > 0 && (
                    <div data-testid={`failing-${r.name}`}>
                      <span className="small muted">First {r.failingRows.length} failing row{r.failingRows.length === 1 ? '' : 's'}:</span>
                      <pre className={css.failing}>{r.failingRows.map((x) => JSON.stringify(x)).join('\n')}</pre>
                    </div>
                  )}
                  {open === key && r.sql && <pre className="code">{r.sql}</pre>}
                </td></tr>
              ) : null}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}
