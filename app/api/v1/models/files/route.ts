// GET /api/v1/models/files?path= - one project file's text
// PUT /api/v1/models/files - create or replace a project file: { path, content } → the project's parse errors
// DELETE /api/v1/models/files?path= - delete a project file
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { AppError } from '@/lib/errors';
import { checkProjectPath, deleteProjectFile, ensureModelsProject, loadModelsProjectConfined, readProjectFiles, writeProjectFile } from '@/lib/models';

const PathQuery = z.object({ path: z.string().min(1).max(300) });
const PutBody = z.strictObject({ path: z.string().min(1).max(300), content: z.string().max(512 * 1024) });

const depsOf = (deps: { pool: import('pg').Pool; env: import('@/lib/config/env').Env }) => ({ pool: deps.pool, env: deps.env });

export const GET = apiHandler({ query: PathQuery }, async ({ deps, query }) => {
  const rel = checkProjectPath(query.path);
  const files = readProjectFiles(await ensureModelsProject(depsOf(deps)));
  if (files[rel] === undefined) throw new AppError('not_found', `models: no file ${rel}`, { field: 'path' });
  return { path: rel, content: files[rel] };
});

export const PUT = apiHandler({ role: 'operator', body: PutBody, maxBodyBytes: 600 * 1024 }, async ({ deps, body }) => {
  const rel = checkProjectPath(body.path);
  writeProjectFile(await ensureModelsProject(depsOf(deps)), rel, body.content);
  // The parse errors come from the rendering child process: this process renders no template.
  const after = await loadModelsProjectConfined(depsOf(deps));
  return { path: rel, saved: true, errors: after.errors };
});

export const DELETE = apiHandler({ role: 'operator', query: PathQuery }, async ({ deps, query }) => {
  deleteProjectFile(await ensureModelsProject(depsOf(deps)), query.path);
  return { path: query.path, deleted: true };
});
