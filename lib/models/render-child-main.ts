/**
 * Entry of the short-lived process that renders model templates
 * (bin/models-render.mjs starts it; render-child.ts spawns it). Lines of
 * JSON both ways: the first line in is the RenderRequest; a line out
 * `{"need": ident}` asks the parent for a lake table's location, answered by
 * the next line in (`{"location"}` or `{"error"}`); the last line out is the
 * answer, then the process exits.
 */
import readline from 'node:readline';
import { AppError } from '../errors';
import { handleRenderRequest, type RenderRequest } from './render-request';

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const next = async (): Promise<unknown> => {
  const r = await lines.next();
  if (r.done) throw new Error('models: the parent closed the render request');
  return JSON.parse(r.value);
};
const send = (o: unknown) => new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(o)}\n`, () => resolve()));

let answer: unknown;
try {
  const req = await next() as RenderRequest;
  const result = await handleRenderRequest(req, async (ident) => {
    await send({ need: ident });
    const a = await next() as { location?: string; error?: string };
    if (typeof a.location === 'string') return a.location;
    throw new AppError('not_found', `models: lake table ${ident}: ${a.error ?? 'not found'}`);
  });
  answer = { ok: true, result };
} catch (e) {
  answer = { ok: false, error: e instanceof AppError ? { code: e.code, message: e.message, field: e.field } : { code: 'internal', message: (e as Error)?.message ?? String(e) } };
}
await send(answer);
process.exit(0);
