// POST /api/v1/models/compile - rendered SQL of a selection, optionally with unsaved editor buffers: { select?, exclude?, vars?, target?, files? }
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { checkProjectPath, compileModelsConfined } from '@/lib/models';

const Body = z.strictObject({
  select: z.array(z.string().max(300)).max(100).optional(),
  exclude: z.array(z.string().max(300)).max(100).optional(),
  vars: z.record(z.string(), z.unknown()).optional(),
  target: z.string().min(1).max(100).optional(),
  /** Unsaved buffers: path → text, compiled instead of the saved files (nothing is written). */
  files: z.record(z.string(), z.string().max(512 * 1024)).optional(),
});

// Rendering unsaved text is editing: operators only. The templates are rendered in a short-lived child process, never here.
export const POST = apiHandler({ role: 'operator', body: Body, maxBodyBytes: 1024 * 1024 }, async ({ deps, body }) => {
  const overrides = body.files ? Object.fromEntries(Object.entries(body.files).map(([p, t]) => [checkProjectPath(p), t])) : undefined;
  const r = await compileModelsConfined({ pool: deps.pool, env: deps.env }, { select: body.select, exclude: body.exclude, vars: body.vars, target: body.target, overrides });
  return { nodes: r.nodes };
});
