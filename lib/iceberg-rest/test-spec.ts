/**
 * Test-only: the Apache Iceberg REST catalog OpenAPI (vendored under
 * test/fixtures/iceberg-rest-spec/) as a response checker. `checkResponse`
 * finds the spec's operation for a request path (served without `{prefix}`),
 * requires the status to be one the operation declares (exact, `4XX`/`5XX`,
 * or `default`), and validates the JSON body against that response's schema
 * with ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect). Formats are not
 * checked: the spec's (`int64`, `uri`…) are annotations in OpenAPI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import YAML from 'yaml';

export const SPEC_FILE = path.resolve('test/fixtures/iceberg-rest-spec/rest-catalog-open-api.yaml');

interface SpecResponse { $ref?: string; content?: Record<string, { schema?: unknown }> }
interface Operation { operationId: string; responses: Record<string, SpecResponse> }
interface Spec { paths: Record<string, Record<string, Operation>>; components: { responses: Record<string, SpecResponse> } }

export interface SpecOperation { method: string; template: string; operationId: string; segments: string[] }

export function loadSpec() {
  const spec = YAML.parse(fs.readFileSync(SPEC_FILE, 'utf8')) as Spec;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, validateSchema: false, allErrors: true });
  ajv.addSchema(spec as object, 'spec');

  const operations: SpecOperation[] = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    for (const [m, op] of Object.entries(item)) {
      if (m === 'parameters' || m === 'summary' || m === 'description') continue;
      // Tributary announces no prefix in /v1/config, so clients call /v1/namespaces…
      const segments = template.replace('/{prefix}', '').split('/').filter(Boolean);
      operations.push({ method: m.toUpperCase(), template, operationId: op.operationId, segments });
    }
  }

  /** The spec's operation for a request, or null when the spec defines none. */
  function operationOf(method: string, pathname: string): SpecOperation | null {
    const parts = pathname.replace(/^.*?\/v1\//, 'v1/').split('/').filter(Boolean);
    const fits = (o: SpecOperation) => o.segments.length === parts.length && o.segments.every((s, i) => s.startsWith('{') || s === parts[i]);
    // A literal segment beats a parameter (`/tables/rename` is not a namespace called `tables`).
    const literals = (o: SpecOperation) => o.segments.filter((s) => !s.startsWith('{')).length;
    return operations.filter((o) => o.method === method && fits(o)).sort((a, b) => literals(b) - literals(a))[0] ?? null;
  }

  const ptr = (...keys: string[]) => keys.map((k) => k.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

  /** Problems with this answer to `method pathname` under the spec ([] when it conforms). */
  function checkResponse(method: string, pathname: string, status: number, contentType: string | null, body: string): string[] {
    const op = operationOf(method, pathname);
    if (!op) return [`the spec defines no ${method} ${pathname}`];
    const responses = spec.paths[op.template][op.method.toLowerCase()].responses;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
    if (!key) return [`${op.operationId} (${method} ${op.template}) declares no status ${status} (declared: ${Object.keys(responses).join(', ')})`];
    let where = `#/${ptr('paths', op.template, op.method.toLowerCase(), 'responses', key)}`;
    let resp = responses[key];
    if (resp.$ref) { where = resp.$ref; resp = spec.components.responses[resp.$ref.split('/').pop()!]; }
    const json = resp.content?.['application/json'];
    if (!json?.schema) return body.length && method !== 'HEAD' ? [`${op.operationId} ${status} declares no body, got ${body.slice(0, 200)}`] : [];
    if (method === 'HEAD') return [];
    if (!/^application\/json\b/.test(contentType ?? '')) return [`${op.operationId} ${status}: content-type ${contentType}, not application/json`];
    let data: unknown;
    try { data = JSON.parse(body); } catch { return [`${op.operationId} ${status}: body is not JSON: ${body.slice(0, 200)}`]; }
    const validate = ajv.getSchema(`spec${where}/${ptr('content', 'application/json', 'schema')}`);
    if (!validate) return [`no schema at ${where}`];
    return validate(data) ? [] : (validate.errors ?? []).map((e) => `${op.operationId} ${status}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  }

  return { spec, operations, operationOf, checkResponse };
}
