// The reference's one script, read from the installed @scalar/api-reference package.
import fs from 'node:fs/promises';
import path from 'node:path';

// The package's "exports" do not include its browser bundle, so it is read by path (the panel runs from
// the installation root); a static path also lets the build trace exactly this file.
const ASSETS: Record<string, string> = {
  'standalone.js': path.join(process.cwd(), 'node_modules/@scalar/api-reference/dist/browser/standalone.js'),
};

export async function GET(_req: Request, ctx: { params: Promise<{ asset: string }> }): Promise<Response> {
  const file = ASSETS[(await ctx.params).asset];
  if (!file) return new Response('not found', { status: 404 });
  return new Response(await fs.readFile(file), { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' } });
}
