/**
 * One line saying what a run did, by kind, from its params and result (the
 * Runs list and the run page). Pure: tested without React.
 */
export interface SummaryInput { kind: string; params: unknown; result: unknown; status?: string }

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? v as Obj : {});
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' && v ? v.split(',').map((x) => x.trim()).filter(Boolean) : []);
const names = (v: unknown, all: string) => { const l = list(v); return l.length ? (l.length > 3 ? `${l.slice(0, 3).join(', ')} +${l.length - 3}` : l.join(', ')) : all; };
const units = (r: Obj): Obj[] => (Array.isArray(r.units) ? r.units.map(obj) : []);

function countBy(items: Obj[], key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) { const k = String(i[key] ?? '?'); out[k] = (out[k] ?? 0) + 1; }
  return out;
}

function etl(p: Obj, r: Obj): string {
  const parts = [String(p.mode ?? r.mode ?? '?')];
  if (p.selfTest) parts.push('self-test');
  if (p.plan) parts.push('plan only');
  parts.push(`branches ${names(p.branch, 'all')}`, `tables ${names(p.tables, 'all')}`);
  const u = units(r);
  if (u.length || Array.isArray(r.units)) {
    const rows = u.reduce((n, x) => n + (Number(x.rows) || 0), 0);
    const ok = u.filter((x) => x.status === 'SUCCESS' || (x.status === 'PLANNED' && !x.error)).length;
    if (!p.plan) parts.push(`${rows.toLocaleString('en-US')} rows`);
    parts.push(`units ${ok} ok / ${u.length - ok} failed`);
  }
  return parts.join(' · ');
}

function dq(p: Obj, r: Obj): string {
  const parts = [p.selfTest ? 'self-test' : null, `tables ${names(p.tables, 'all')}`, `branches ${names(p.branch, 'all')}`].filter(Boolean) as string[];
  if (p.repair) parts.push('repair');
  const u = units(r);
  if (u.length) {
    const c = countBy(u, 'status');
    parts.push(Object.entries(c).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${n} ${k}`).join(', '));
  }
  return parts.join(' · ');
}

function slices(kind: string, p: Obj, r: Obj): string {
  const parts = [p.runId !== undefined ? `run ${String(p.runId)}` : null];
  if (kind === 'slices.run') parts.push(`executor ${String(p.executor ?? 'default')}`);
  if (typeof r.verdict === 'string') parts.push(r.verdict);
  const counts = obj(r.counts);
  const c = Object.entries(counts).filter(([, n]) => typeof n === 'number' && n > 0).map(([k, n]) => `${n} ${k}`);
  if (c.length) parts.push(c.join(', '));
  if (kind === 'slices.split' && typeof r.slices === 'number') parts.push(`${r.slices} slices`);
  return parts.filter(Boolean).join(' · ');
}

function models(p: Obj, r: Obj): string {
  const parts = [`select ${names(p.select, 'all')}`];
  if (list(p.exclude).length) parts.push(`exclude ${names(p.exclude, '')}`);
  const res = Array.isArray(r.results) ? r.results.map(obj) : [];
  if (res.length) {
    const c = countBy(res, 'status');
    const good = (c.success ?? 0) + (c.pass ?? 0);
    const bad = (c.fail ?? 0) + (c.error ?? 0);
    parts.push(`${good} passed / ${bad} failed${c.skipped ? ` / ${c.skipped} skipped` : ''}`);
  }
  return parts.join(' · ');
}

/** One value as a short phrase: whitespace folded, long text cut (a mail body or inline SQL is no summary). */
function short(v: unknown, max = 60): string {
  const t = String(v).replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function fallback(p: Obj): string {
  // Scalars and non-empty lists; nested objects (inline JSON) say little in one line.
  const shown = Object.entries(p).filter(([, v]) => (Array.isArray(v) ? v.length > 0 : v !== undefined && v !== null && v !== '' && typeof v !== 'object'));
  return shown.slice(0, 4).map(([k, v]) => `${k} ${Array.isArray(v) ? names(v, '') : short(v)}`).join(' · ');
}

function mail(p: Obj, r: Obj): string {
  const parts = [`to ${names(p.to, '?')}`];
  if (typeof p.subject === 'string') parts.push(`"${short(p.subject)}"`);
  if (typeof r.attempts === 'number') parts.push(`try ${r.attempts}`);
  return parts.join(' · ');
}

export function runSummary(run: SummaryInput): string {
  const p = obj(run.params); const r = obj(run.result);
  if (run.kind === 'etl.run') return etl(p, r);
  if (run.kind === 'dq.run') return dq(p, r);
  if (run.kind.startsWith('slices.')) return slices(run.kind, p, r) || fallback(p);
  if (run.kind.startsWith('models.') && run.kind !== 'models.query') return models(p, r);
  if (run.kind === 'mail.send' || run.kind === 'mail.test') return mail(p, r);
  return fallback(p);
}

/** The run's warnings (result.warnings), to show as a badge: "nothing to do: no branches configured". */
export function runWarnings(run: { result: unknown }): string[] {
  const w = obj(run.result).warnings;
  return Array.isArray(w) ? w.map(String).filter(Boolean) : [];
}

/** Units that did not succeed, from a result that keeps them (etl, dq): what a partly failed run shows. */
export function failedUnits(run: { result: unknown }): Obj[] {
  return units(obj(run.result)).filter((u) => !['SUCCESS', 'OK', 'SKIPPED'].includes(String(u.status)) && !(u.status === 'PLANNED' && !u.error));
}
