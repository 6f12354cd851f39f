// The web server as `tributary serve` starts it: Next's own `next start`, in this process, after
// following serve's IPC channel (serve-child.mjs: stop when serve is gone). argv: <next args…>.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { followServe } from './serve-child.mjs';

followServe();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const nextBin = path.join(root, 'node_modules/next/dist/bin/next');
// next's CLI reads its command from process.argv as if it had been started itself
process.argv = [process.argv[0], nextBin, ...process.argv.slice(2)];
createRequire(import.meta.url)(nextBin);
