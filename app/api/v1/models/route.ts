// GET /api/v1/models - the model project: files, models and tests with their last status, parse errors
import { apiHandler } from '@/app/_server/deps';
import { loadModelsProjectConfined, projectView, readProjectFiles } from '@/lib/models';

// The templates are parsed (rendered once, as dbt does) in a short-lived child process, never here.
export const GET = apiHandler({}, async ({ deps }) => {
  const d = { pool: deps.pool, env: deps.env };
  const p = await loadModelsProjectConfined(d);
  return projectView(deps.pool, p, Object.keys(readProjectFiles(p.root)));
});
