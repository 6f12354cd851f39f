#!/usr/bin/env node
// Entry point of the `tributary` CLI: runs the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../lib/cli/main.ts');
await main(process.argv);
