#!/usr/bin/env node
// Entry point of the `tributary` CLI: runs the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../workers/cli.ts');
await runCli(process.argv);
