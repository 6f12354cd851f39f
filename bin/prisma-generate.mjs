#!/usr/bin/env node
// Generates the Prisma client after install. Prisma 7's CLI wants a schema-engine
// binary it cannot download here; generation does not use it, so any existing
// file satisfies the check (see ARCHITECTURE.md, "What the environment offers").
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? path.join(root, 'package.json'), PRISMA_HIDE_UPDATE_MESSAGE: '1' };
const r = spawnSync(process.execPath, [path.join(root, 'node_modules/prisma/build/index.js'), 'generate'], { cwd: root, env, stdio: 'inherit' });
process.exit(r.status ?? 1);
