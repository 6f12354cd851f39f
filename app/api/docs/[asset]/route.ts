// The reference's one script, read from the installed @scalar/api-reference package.
import fs from 'node:fs/promises';
import path from 'node:path';

// The package's "exports" do not include its browser bundle, so it is read by path from the
// installation root (where the panel runs); a static path lets the build trace exactly this file.
export async function GET(_req: Request, ctx: { params: Promise<{ asset: string }> }): Promise<Response> {
  if ((await ctx.params).asset !== 'standalone.js') return new Response('not found', { status: 404 });
  const body = await fs.readFile(path.join(process.cwd(), 'node_modules/@scalar/api-reference/dist/browser/standalone.js'));
  return new Response(body, { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' } });
}
