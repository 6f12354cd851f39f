// GET /api/docs/:asset - the reference's script and stylesheet, read from the installed swagger-ui-dist package.
import fs from 'node:fs/promises';
import path from 'node:path';

const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

// Read by path from the installation root (where the panel runs); the names are a fixed allow-list.
export async function GET(_req: Request, ctx: { params: Promise<{ asset: string }> }): Promise<Response> {
  const asset = (await ctx.params).asset;
  const type = Object.hasOwn(ASSETS, asset) ? ASSETS[asset] : undefined;
  if (!type) return new Response('not found', { status: 404 });
  const body = await fs.readFile(path.join(process.cwd(), 'node_modules/swagger-ui-dist', asset));
  return new Response(body, { headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } });
}
