// Module hooks (run on the loader thread): log bare specifiers (packages), pass everything on.
import { writeSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  if (!/^(\.|\/|node:|file:|data:)/.test(specifier)) writeSync(2, `trace-load: ${specifier}\n`);
  return next(specifier, context);
}
