import { z } from 'zod';
import type { JobRegistry } from '../jobs';
import { IDEMPOTENCY_TTL_HOURS } from '../jobs/idempotency';
import type { HandlerSpec } from './handler';
import { DEFAULT_MAX_BODY_BYTES } from './body';

/** A route handler made by `apiHandler`: it carries its spec, which this module documents. */
export interface DocumentedHandler { spec: HandlerSpec<z.ZodType, z.ZodType, z.ZodType> }

/** One route file: its URL path (`/api/v1/jobs/{id}`) and its exported method handlers. */
export interface RouteEntry {
  path: string;
  methods: Partial<Record<'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD', DocumentedHandler>>;
  /** One-line summary per method (the route file's header comments). */
  summaries?: Record<string, string>;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

type JsonSchema = Record<string, unknown>;

/** zod → JSON Schema (2020-12, as OpenAPI 3.1 uses) of what a client sends. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const s = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete s.$schema;
  return s;
}

function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const s = jsonSchemaOf(schema);
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, p]) => ({
    name, in: where, required: where === 'path' ? true : required.has(name), schema: p,
    ...(typeof p.description === 'string' ? { description: p.description } : {}),
  }));
}

const errorRef = { $ref: '#/components/responses/Error' };

/**
 * The OpenAPI 3.1 document of `/api/v1`, built from the same zod schemas that
 * validate requests (each route's params, query and body; each job kind's
 * payload), so it cannot drift from what the server enforces.
 */
export function buildOpenApi(o: { routes: RouteEntry[]; jobs: JobRegistry; version: string }): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  const jobSchemas: Record<string, JsonSchema> = {};
  for (const d of o.jobs.all.filter((x) => !x.internal)) jobSchemas[`JobPayload.${d.kind}`] = { ...jsonSchemaOf(d.payload), description: d.description };
  const jobStart = {
    oneOf: o.jobs.kinds().map((k) => ({
      type: 'object', required: ['kind'], additionalProperties: false,
      properties: { kind: { const: k.kind }, params: { $ref: `#/components/schemas/JobPayload.${k.kind}` } },
      description: `${k.description} (needs the ${k.role} role)`,
    })),
    discriminator: { propertyName: 'kind' },
  };
  for (const r of o.routes) {
    const item: JsonSchema = {};
    for (const m of METHODS) {
      const h = r.methods[m];
      if (!h) continue;
      const spec = h.spec;
      const role = spec.role ?? 'viewer';
      const op: JsonSchema = {
        summary: spec.summary ?? r.summaries?.[m] ?? `${m} ${r.path}`,
        ...(spec.description ? { description: spec.description } : {}),
        tags: [r.path.split('/')[3] ?? 'api'],
        'x-required-role': role,
        security: role === 'public' ? [] : [{ bearerAuth: [] }, { sessionCookie: [] }],
        parameters: [...parametersOf(spec.params, 'path'), ...parametersOf(spec.query, 'query')],
        responses: {
          [String(spec.status ?? 200)]: { description: 'OK', content: { 'application/json': { schema: spec.response ? jsonSchemaOf(spec.response) : {} } } },
          400: errorRef, ...(role === 'public' ? {} : { 401: errorRef, 403: errorRef }), 404: errorRef, 409: errorRef,
          // Every route, while the database cannot be reached (lib/api/errors.ts).
          503: { $ref: '#/components/responses/Unavailable' },
        },
      };
      if (spec.enqueues) {
        (op.parameters as JsonSchema[]).push({
          name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 },
          description: `Makes a retry safe: the same key (per user) within ${IDEMPOTENCY_TTL_HOURS} hours answers with the run the first request created `
            + '(202 again, with `Idempotent-Replayed: true`) and creates nothing. The same key with a different request (another body or path) '
            + 'is refused with 422 `idempotency_mismatch`. 1–255 printable ASCII characters; a UUID is the usual choice.',
        });
        const responses = op.responses as Record<string, unknown>;
        const ok = responses[String(spec.status ?? 202)] ?? responses['200'];
        delete responses['200'];
        responses['202'] = { ...(ok as JsonSchema), description: 'Accepted: the run is queued (or, for a repeated Idempotency-Key, the first request\'s run)',
          headers: {
            Location: { description: 'The run', schema: { type: 'string' } },
            'Idempotent-Replayed': { description: '`true` when this answers a repeated Idempotency-Key (no new run was created)', schema: { type: 'string', enum: ['true'] } },
          } };
        responses['422'] = { ...errorRef, description: 'Idempotency-Key reused for a different request (`idempotency_mismatch`)' };
        responses['429'] = {
          description: 'The queue is full (TRIBUTARY_QUEUE_MAX_DEPTH runs waiting, or the oldest waiting TRIBUTARY_QUEUE_MAX_AGE_SECONDS): come back after Retry-After (`rate_limited`)',
          headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        };
      }
      if (spec.body) {
        const max = spec.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
        op.requestBody = {
          required: true,
          description: `JSON, at most ${max} bytes (larger: 413 payload_too_large)`,
          content: { 'application/json': { schema: r.path === '/api/v1/jobs' && m === 'POST' ? jobStart : jsonSchemaOf(spec.body) } },
        };
        op['x-max-body-bytes'] = max;
      }
      item[m.toLowerCase()] = op;
    }
    paths[r.path] = item;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Tributary API', version: o.version, description: 'Automation API of Tributary: jobs of every engine, connections, lake, data quality, slices, flows and models. Errors are `{ "error": { "code", "message", "field"? } }`.' },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API token (`tributary tokens create`, or Settings → Tokens); it carries its user\'s role.' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'next-auth.session-token', description: 'The panel\'s session cookie.' },
      },
      schemas: {
        Error: {
          type: 'object', required: ['error'],
          properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } } } },
        },
        ...jobSchemas,
      },
      responses: {
        Error: { description: 'An error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        Unavailable: {
          description: 'The database cannot be reached right now (restarting, or down): `code` is `unavailable`; retry after `Retry-After` seconds.',
          headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  };
}
