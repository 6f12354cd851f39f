/**
 * The alert mail of a flow run, as text and HTML. Pure: the executor builds
 * it when the run ends (or runs long) and queues it as a mail.send job.
 */
export type AlertEvent = 'failure' | 'success' | 'long_running';

export interface AlertFacts {
  event: AlertEvent;
  flowName: string;
  flowId: string;
  runId: string;
  /** Base URL of the panel (TRIBUTARY_PUBLIC_URL), no trailing slash needed. */
  publicUrl: string;
  startedAt: Date | null;
  /** End of the run, or now for a run still going. */
  endedAt: Date;
  scheduledFor: Date | null;
  failedNode?: { id: string; label: string | null; kind: string; error: string | null } | null;
  nodes: { id: string; label: string | null; status: string }[];
}

const EXCERPT = 1200;

export function formatDuration(ms: number): string {
  if (ms < 0) ms = 0;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function runLink(publicUrl: string, flowId: string, runId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/flows/${flowId}/runs/${runId}`;
}

const durationOf = (f: AlertFacts) => (f.startedAt ? formatDuration(f.endedAt.getTime() - f.startedAt.getTime()) : 'not started');
const nodeNameOf = (f: AlertFacts) => (f.failedNode ? (f.failedNode.label && f.failedNode.label !== f.failedNode.id ? `${f.failedNode.id} (${f.failedNode.label})` : f.failedNode.id) : '');

/** One line saying what happened: the mail's subject after its tag, and a webhook's `text`. */
export function alertHeadline(f: AlertFacts): string {
  return f.event === 'failure'
    ? `Flow ${f.flowName} failed${f.failedNode ? ` at node ${nodeNameOf(f)}` : ''}`
    : f.event === 'success' ? `Flow ${f.flowName} succeeded` : `Flow ${f.flowName} is still running after ${durationOf(f)}`;
}

export function buildAlertMail(f: AlertFacts): { subject: string; text: string; html: string } {
  const link = runLink(f.publicUrl, f.flowId, f.runId);
  const duration = durationOf(f);
  const started = f.startedAt ? f.startedAt.toISOString() : '—';
  const nodeName = nodeNameOf(f);
  const excerpt = f.failedNode?.error ? (f.failedNode.error.length > EXCERPT ? `${f.failedNode.error.slice(0, EXCERPT)}…` : f.failedNode.error) : '';
  const headline = alertHeadline(f);
  const subject = `[tributary] ${headline}`;
  const lines = [
    headline,
    '',
    `Flow:      ${f.flowName}`,
    `Run:       ${f.runId}`,
    ...(f.scheduledFor ? [`Scheduled: ${f.scheduledFor.toISOString()}`] : []),
    `Started:   ${started}`,
    `Duration:  ${duration}${f.event === 'long_running' ? ' (still running)' : ''}`,
    ...(f.failedNode ? [`Failed node: ${nodeName} [${f.failedNode.kind}]`, '', 'Error:', excerpt || '(no message)'] : []),
    '',
    'Nodes:',
    ...f.nodes.map((n) => `  ${n.id.padEnd(24)} ${n.status}`),
    '',
    `Open the run: ${link}`,
  ];
  const row = (k: string, v: string) => `<tr><th align="left" style="padding:2px 12px 2px 0">${esc(k)}</th><td>${v}</td></tr>`;
  const colour: Record<string, string> = { succeeded: '#1a7f37', failed: '#cf222e', skipped: '#9a6700', cancelled: '#6e7781', running: '#0969da' };
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;font-size:14px">',
    `<h2 style="margin:0 0 12px">${esc(headline)}</h2>`,
    '<table>',
    row('Flow', esc(f.flowName)),
    row('Run', `<code>${esc(f.runId)}</code>`),
    ...(f.scheduledFor ? [row('Scheduled', esc(f.scheduledFor.toISOString()))] : []),
    row('Started', esc(started)),
    row('Duration', esc(duration)),
    ...(f.failedNode ? [row('Failed node', `<strong>${esc(nodeName)}</strong> <code>${esc(f.failedNode.kind)}</code>`)] : []),
    '</table>',
    ...(f.failedNode ? [`<h3>Error</h3><pre style="white-space:pre-wrap;background:#f6f8fa;padding:8px">${esc(excerpt || '(no message)')}</pre>`] : []),
    '<h3>Nodes</h3><ul>',
    ...f.nodes.map((n) => `<li><code>${esc(n.id)}</code> <span style="color:${colour[n.status] ?? '#333'}">${esc(n.status)}</span></li>`),
    '</ul>',
    `<p><a href="${esc(link)}">Open the run in Tributary</a></p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text: lines.join('\n'), html };
}
