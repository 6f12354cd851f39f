// GET /api/v1/assets - the asset graph: source tables per branch, lake tables, models, seeds and tests with their edges, last load/build, DQ per branch, schema and flows
import { apiHandler } from '@/app/_server/deps';
import { loadAssetGraph } from '@/lib/assets';

// The models project is parsed (its templates rendered once) in a short-lived child process, never here.
export const GET = apiHandler({}, async ({ deps }) => loadAssetGraph({ pool: deps.pool, env: deps.env }));
