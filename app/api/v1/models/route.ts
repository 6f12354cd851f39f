// GET /api/v1/models - the model project: files, models and tests with their last status, parse errors
import { apiHandler } from '@/lib/api';
import { loadModelsProject, projectView, readProjectFiles } from '@/lib/models';

export const GET = apiHandler({}, async ({ deps }) => {
  const d = { pool: deps.pool, env: deps.env, cwd: process.cwd() };
  const p = await loadModelsProject(d);
  return projectView(deps.pool, p, Object.keys(readProjectFiles(p.root)));
});
