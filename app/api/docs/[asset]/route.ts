// The reference's one script, read from the installed @scalar/api-reference package.
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';

const ASSETS: Record<string, string> = { 'standalone.js': '@scalar/api-reference/dist/browser/standalone.js' };

export async function GET(_req: Request, ctx: { params: Promise<{ asset: string }> }): Promise<Response> {
  const spec = ASSETS[(await ctx.params).asset];
  if (!spec) return new Response('not found', { status: 404 });
  const file = createRequire(import.meta.url).resolve(spec);
  return new Response(await fs.readFile(file), { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' } });
}
