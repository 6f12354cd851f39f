import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';

/**
 * OpenLineage test kit: the vendored spec (test/fixtures/openlineage/) compiled with
 * ajv, and an in-process HTTP server that receives events as a lineage backend does.
 */
const DIR = path.resolve(import.meta.dirname, '../../test/fixtures/openlineage');
const FACETS = ['SchemaDatasetFacet', 'OutputStatisticsOutputDatasetFacet', 'ErrorMessageRunFacet', 'JobTypeJobFacet', 'ParentRunFacet', 'ColumnLineageDatasetFacet'];

/** `validate(event)` → the list of schema errors (empty when valid): the event, then each facet against its own schema. */
export function openLineageValidator(): (event: unknown) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // The spec's formats, checked as the spec means them (ajv-formats is not a dependency).
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addFormat('uri', (s: string) => { try { new URL(s); return true; } catch { return false; } });
  ajv.addFormat('date-time', (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)));
  const spec = JSON.parse(fs.readFileSync(path.join(DIR, 'OpenLineage.json'), 'utf8'));
  ajv.addSchema(spec);
  const facets = new Map<string, ReturnType<typeof ajv.compile>>();
  for (const f of FACETS) {
    const s = JSON.parse(fs.readFileSync(path.join(DIR, 'facets', `${f}.json`), 'utf8'));
    const v = ajv.compile(s);
    // Each facet schema's root: `{ "<facet key>": <facet> }`.
    for (const key of Object.keys(s.properties)) facets.set(key, v);
  }
  const runEvent = ajv.getSchema(`${spec.$id}#/$defs/RunEvent`)!;
  const errs = (v: ReturnType<typeof ajv.compile>, where: string) => (v.errors ?? []).map((e) => `${where}${e.instancePath} ${e.message}`);
  return (event) => {
    const out: string[] = [];
    if (!runEvent(event)) out.push(...errs(runEvent, 'event'));
    const e = event as { run?: { facets?: object }; job?: { facets?: object }; inputs?: { facets?: object }[]; outputs?: { facets?: object; outputFacets?: object }[] };
    const groups: [string, object | undefined][] = [['run', e.run?.facets], ['job', e.job?.facets],
      ...(e.inputs ?? []).map((d, i): [string, object | undefined] => [`inputs[${i}]`, d.facets]),
      ...(e.outputs ?? []).flatMap((d, i): [string, object | undefined][] => [[`outputs[${i}]`, d.facets], [`outputs[${i}].outputFacets`, d.outputFacets]])];
    for (const [where, fs_] of groups) {
      for (const [key, value] of Object.entries(fs_ ?? {})) {
        const v = facets.get(key);
        if (!v) { out.push(`${where}: facet ${key} has no vendored schema`); continue; }
        if (!v({ [key]: value })) out.push(...errs(v, `${where}.${key}`));
      }
    }
    return out;
  };
}

export interface LineageSink {
  url: string;
  events: Record<string, any>[];
  /** Authorization headers received, in order. */
  auth: (string | undefined)[];
  close(): Promise<void>;
}

/** An HTTP server taking `POST /api/v1/lineage` as Marquez does (201, empty body). */
export async function startLineageSink(): Promise<LineageSink> {
  const events: Record<string, any>[] = [];
  const auth: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/api/v1/lineage') { res.writeHead(404).end(); return; }
      auth.push(req.headers.authorization);
      events.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, events, auth,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
