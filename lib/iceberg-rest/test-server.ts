/**
 * Test-only: a node:http server around `handleIcebergRest` (the same function
 * the Next route calls), on a free loopback port, for HTTP clients such as
 * iceberg-js and ClickHouse. Serves under `/iceberg/v1`, as the web process does
 * (lib/testing/served-catalog.ts is the whole fixture around it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleIcebergRest, type IcebergRestDeps } from './catalog';

export async function startIcebergServer(deps: IcebergRestDeps): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const r = await handleIcebergRest(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body }), deps);
    res.writeHead(r.status, Object.fromEntries(r.headers));
    res.end(req.method === 'HEAD' ? undefined : Buffer.from(await r.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/iceberg`,
    close: () => new Promise<void>((resolve, reject) => { server.closeAllConnections(); server.close((e) => (e ? reject(e) : resolve())); }),
  };
}
