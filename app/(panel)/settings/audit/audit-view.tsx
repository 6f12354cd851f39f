'use client';
import Link from 'next/link';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../../_components/api-client';
import { formatTime } from '../../../_components/format';
import { PageHeader } from '../../../_components/page-header';

interface AuditEvent { id: string; at: string; actor: string; action: string; target: string | null; before: unknown; after: unknown; address: string | null }
interface Filters { actor: string; action: string; target: string; since: string; until: string }
const EMPTY: Filters = { actor: '', action: '', target: '', since: '', until: '' };
const PAGE = 100;

function query(f: Filters, before?: string): string {
  const q = new URLSearchParams({ limit: String(PAGE) });
  for (const k of ['actor', 'action', 'target'] as const) if (f[k].trim()) q.set(k, f[k].trim());
  // datetime-local inputs are local wall time: send instants.
  if (f.since) q.set('since', new Date(f.since).toISOString());
  if (f.until) q.set('until', new Date(f.until).toISOString());
  if (before) q.set('before', before);
  return `/api/v1/audit?${q}`;
}

const brief = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v));

/** Settings → Audit: the append-only log of changes and sign-in failures, newest first, filtered, paged. */
export function AuditView() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const events = useInfiniteQuery({
    queryKey: ['audit', filters],
    queryFn: ({ pageParam }) => api<{ events: AuditEvent[]; next: string | null }>(query(filters, pageParam || undefined)),
    initialPageParam: '',
    getNextPageParam: (last) => last.next ?? undefined,
  });
  const rows = events.data?.pages.flatMap((p) => p.events) ?? [];
  const err = events.error as ApiError | null;
  const field = (k: keyof Filters, label: string, type = 'text', placeholder?: string) => (
    <label className="field"><span>{label}</span>
      <input name={`audit-${k}`} type={type} placeholder={placeholder} value={draft[k]} onChange={(e) => setDraft({ ...draft, [k]: e.target.value })}
        aria-invalid={err?.field === `query.${k}`} />
    </label>
  );
  function submit(e: FormEvent) { e.preventDefault(); setFilters(draft); }

  return (
    <div className="page">
      <PageHeader title="Audit log" sub={<><Link href="/settings">Settings</Link> · who changed what, when and from where. Append-only.</>} />
      <section className="card">
        <form className="form-inline" onSubmit={submit} aria-label="Audit filters">
          {field('actor', 'Actor', 'text', 'user:alice')}
          {field('action', 'Action', 'text', 'user.update or login.')}
          {field('target', 'Target', 'text', 'connection: or user:bob')}
          {field('since', 'Since', 'datetime-local')}
          {field('until', 'Until', 'datetime-local')}
          <button type="submit" className="btn btn-primary">Filter</button>
          <button type="button" className="btn btn-ghost" onClick={() => { setDraft(EMPTY); setFilters(EMPTY); }}>Clear</button>
        </form>
        {err && <p className="form-error" role="alert">{err.message}</p>}
      </section>
      <section className="card card-flush">
        <table className="table" data-testid="audit-table">
          <thead><tr><th>When</th><th>Actor</th><th>Action</th><th>Target</th><th>Change</th><th>Address</th></tr></thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id}>
                <td>{formatTime(e.at)}</td>
                <td className="strong">{e.actor}</td>
                <td>{e.action}</td>
                <td>{e.target}</td>
                <td className="small mono">{e.before !== null && e.before !== undefined && <div>before: {brief(e.before)}</div>}{e.after !== null && e.after !== undefined && <div>after: {brief(e.after)}</div>}</td>
                <td className="muted">{e.address}</td>
              </tr>
            ))}
            {!events.isPending && rows.length === 0 && <tr><td colSpan={6} className="muted">No events match.</td></tr>}
          </tbody>
        </table>
        {events.hasNextPage && (
          <p><button type="button" className="btn" disabled={events.isFetchingNextPage} onClick={() => void events.fetchNextPage()}>Older events</button></p>
        )}
      </section>
    </div>
  );
}
