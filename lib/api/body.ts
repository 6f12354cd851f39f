import { AppError } from '../errors';
import { decodeUtf8, parseCleanJson } from '../errors/bad-bytes';

/** Largest JSON body a route accepts unless it says otherwise. (Default: 1 MiB) */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Read a request body as JSON, refusing more than `maxBytes` before parsing
 * (Content-Length is checked first, the stream is counted too, since chunked
 * bodies have none). An empty body reads as `{}`. Bytes no field may hold
 * (lib/errors/bad-bytes.ts) are refused before any handler sees them.
 */
export async function readJsonBody(req: Request, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<unknown> {
  const tooBig = () => new AppError('payload_too_large', `request body is larger than ${maxBytes} bytes`, { field: 'body' });
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooBig();
  if (!req.body) return {};
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch (e) {
      // The client went away mid-body (Node's "aborted" / ECONNRESET): its request is incomplete, so
      // nothing is created from it, and it is the client's doing, not an error of ours to log.
      throw new AppError('bad_request', 'request body was not received in full (the client closed the connection)', { field: 'body', cause: e });
    }
    const { done, value } = step;
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {}); // we answer 413 whatever the stream does next
      throw tooBig();
    }
    chunks.push(value);
  }
  // Invalid UTF-8, nesting deeper than 64, NUL bytes and lone surrogates in any string: 400 naming the field.
  const text = decodeUtf8(Buffer.concat(chunks));
  if (!text.trim()) return {};
  return parseCleanJson(text);
}
