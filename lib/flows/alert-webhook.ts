import { alertHeadline, runLink, formatDuration, type AlertFacts } from './alert-mail';

/**
 * The facts of a flow alert as plain JSON (a `webhook.send` job's payload):
 * the same facts the alert mail states, with times as ISO strings.
 */
export interface AlertWebhookFacts {
  event: AlertFacts['event'];
  /** One line, as the mail's headline: Slack and Teams show `text`. */
  text: string;
  flow: { id: string; name: string };
  run: { id: string; url: string; scheduledFor: string | null; startedAt: string | null; endedAt: string; durationMs: number | null };
  failedNode: { id: string; label: string | null; kind: string; error: string | null } | null;
  nodes: { id: string; label: string | null; status: string }[];
}

const EXCERPT = 1200;

export function alertWebhookFacts(f: AlertFacts): AlertWebhookFacts {
  const headline = alertHeadline(f);
  const link = runLink(f.publicUrl, f.flowId, f.runId);
  const durationMs = f.startedAt ? Math.max(0, f.endedAt.getTime() - f.startedAt.getTime()) : null;
  const err = f.failedNode?.error ?? null;
  return {
    event: f.event,
    text: `${headline}${durationMs !== null ? ` (${formatDuration(durationMs)})` : ''} — ${link}`,
    flow: { id: f.flowId, name: f.flowName },
    run: { id: f.runId, url: link, scheduledFor: f.scheduledFor?.toISOString() ?? null, startedAt: f.startedAt?.toISOString() ?? null, endedAt: f.endedAt.toISOString(), durationMs },
    failedNode: f.failedNode ? { ...f.failedNode, error: err && err.length > EXCERPT ? `${err.slice(0, EXCERPT)}…` : err } : null,
    nodes: f.nodes,
  };
}

/**
 * The body to post for a connection's format. `json`: the facts themselves
 * (with `text` for chat tools). `pagerduty`: an Events API v2 event — a
 * failure or a long run triggers an incident deduplicated per flow, a success
 * resolves it.
 */
export function alertWebhookBody(facts: AlertWebhookFacts, format: 'json' | 'pagerduty', routingKey: string | null): unknown {
  if (format === 'json') return { source: 'tributary', ...facts };
  return {
    routing_key: routingKey,
    event_action: facts.event === 'success' ? 'resolve' : 'trigger',
    dedup_key: `tributary-flow-${facts.flow.id}`,
    payload: {
      summary: facts.text.slice(0, 1024),
      source: 'tributary',
      severity: facts.event === 'failure' ? 'error' : 'warning',
      component: facts.flow.name,
      custom_details: { run: facts.run, failedNode: facts.failedNode, nodes: facts.nodes },
    },
    links: [{ href: facts.run.url, text: 'Open the run' }],
  };
}
