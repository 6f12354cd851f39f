// GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS /iceberg/v1/... - the Iceberg REST catalog (read-only; writes answer the spec's 406 or 403), bearer API tokens
import { serverDeps } from '@/app/_server/deps';
import { handleIcebergRest } from '@/lib/iceberg-rest';

export const dynamic = 'force-dynamic';

async function handle(req: Request): Promise<Response> {
  let deps;
  try { deps = serverDeps(); } catch (e) {
    return Response.json({ error: { message: `iceberg-rest: ${(e as Error).message}`, type: 'ServiceUnavailableException', code: 503 } }, { status: 503 });
  }
  return handleIcebergRest(req, deps);
}

// Every method Next routes is exported, so one the spec does not define on a path gets the catalog's
// 405 (JSON error model, `Allow`) rather than Next's bare one.
export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
