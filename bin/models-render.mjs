#!/usr/bin/env node
// The process model templates are rendered in, started by lib/models/render-child.ts
// for the web process (which never renders): the compiled bundle's entry when it
// is current, else the TypeScript source through tsx, as bin/tributary.mjs does.
import fs from 'node:fs';
import path from 'node:path';
import { freshCliEntry } from '../lib/cli/cli-build.mjs';

const cli = process.env.TRIBUTARY_CLI_SOURCES === '1' ? null : freshCliEntry();
const bundled = cli && path.join(path.dirname(cli), 'models-render.mjs');
if (bundled && fs.existsSync(bundled)) {
  await import(bundled);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../lib/models/render-child-main.ts');
}
