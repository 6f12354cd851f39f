// GET /api/v1/openapi.json - the OpenAPI 3.1 document of this API, built from the zod schemas the routes validate with
import { apiHandler } from '@/app/_server/deps';
import { buildOpenApi } from '@/lib/api/openapi';
import { VERSION } from '@/lib/jobs/version';
import { jobs } from '@/app/_server/jobs';

export const GET = apiHandler({ role: 'public', summary: 'the OpenAPI 3.1 document of this API' }, async () => {
  // Imported on first use: the route table imports every route file, this one included.
  const { apiRoutes } = await import('@/app/_server/api-routes');
  return buildOpenApi({ routes: apiRoutes, jobs, version: VERSION });
});
