import fs from 'node:fs/promises';

/** Delivers one serialised event; rejects when it could not. */
export interface LineageTransport {
  /** Where events go, for log lines (no credentials). */
  readonly target: string;
  send(event: Record<string, unknown>): Promise<void>;
}

/**
 * POST to `<url>/<endpoint>` as the OpenLineage clients' HTTP transport does,
 * `Authorization: Bearer <apiKey>` when a key is set.
 * @param o.timeoutMs per request (Default: 5000 ms)
 */
export function httpTransport(o: { url: string; endpoint?: string; apiKey?: string; timeoutMs?: number }): LineageTransport {
  const base = o.url.replace(/\/+$/, '');
  const endpoint = (o.endpoint ?? 'api/v1/lineage').replace(/^\/+/, '');
  const target = `${base}/${endpoint}`;
  const shown = new URL(target); shown.username = ''; shown.password = '';
  return {
    target: shown.toString(),
    async send(event) {
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
        body: JSON.stringify(event),
        signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
      });
      await res.arrayBuffer().catch(() => null); // free the socket
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
    },
  };
}

/**
 * Append each event as one JSON line, as the Python client's file transport
 * does with `append: true` (its default, one file per event, suits no tail -f).
 */
export function fileTransport(path: string): LineageTransport {
  return {
    target: path,
    send: (event) => fs.appendFile(path, JSON.stringify(event) + '\n'),
  };
}
