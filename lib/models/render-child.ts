import { spawn } from 'node:child_process';
import path from 'node:path';
import { AppError, type ErrorCode } from '../errors';
import type { RenderRequest, RenderResult } from './render-request';

/** Limits of one rendering process. */
export interface RenderChildOptions {
  /** Wall-clock time before the process is killed. (Default: 30,000 ms) */
  timeoutMs?: number;
  /** V8 old-space cap of the process, `--max-old-space-size`. (Default: 256 MB) */
  maxOldSpaceMb?: number;
  /** The installation root holding bin/models-render.mjs. (Default: the working directory) */
  root?: string;
}

const MAX_OUTPUT = 64 * 1024 * 1024;
/** Rendering processes one web process runs at once; more requests wait their turn. */
const MAX_CHILDREN = 4;
let running = 0;
const waiting: (() => void)[] = [];

async function turn<T>(f: () => Promise<T>): Promise<T> {
  // A finishing render hands its slot straight to the next waiting one.
  if (running >= MAX_CHILDREN) await new Promise<void>((r) => waiting.push(r)); else running++;
  try { return await f(); } finally { const next = waiting.shift(); if (next) next(); else running--; }
}

/**
 * Run a RenderRequest in a short-lived child process: templates are user
 * text, so the web process never renders them. The interpreter already has
 * no path to host objects and bounds its own work; the child adds a hard
 * wall-clock limit and memory cap, and is started with an empty environment
 * (no secrets to find), so even a flaw in the interpreter could neither hold
 * the web process nor read its keys from the environment.
 */
export function renderInChild<T extends RenderResult>(req: RenderRequest, o: RenderChildOptions = {}, resolveSource?: (ident: string) => Promise<string>): Promise<T> {
  return turn(() => spawnRender<T>(req, o, resolveSource));
}

function spawnRender<T extends RenderResult>(req: RenderRequest, o: RenderChildOptions, resolveSource?: (ident: string) => Promise<string>): Promise<T> {
  const timeoutMs = o.timeoutMs ?? 30_000;
  const mem = o.maxOldSpaceMb ?? 256;
  const root = o.root ?? process.cwd();
  return new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${mem}`, path.join(/*turbopackIgnore: true*/ root, 'bin', 'models-render.mjs')], {
      cwd: root,
      // Only what node and tsx need to start: none of the web process's secrets.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: process.env.NODE_ENV ?? 'production', ...(process.env.TRIBUTARY_CLI_SOURCES ? { TRIBUTARY_CLI_SOURCES: process.env.TRIBUTARY_CLI_SOURCES } : {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let outLen = 0; let pending = ''; let err = '';
    let timedOut = false; let tooBig = false; let answer: unknown;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs);
    const write = (o: unknown) => { if (child.stdin.writable) child.stdin.write(`${JSON.stringify(o)}\n`); };
    const onLine = (line: string) => {
      let m: { need?: string };
      try { m = JSON.parse(line); } catch { return; }
      if (typeof m.need === 'string') {
        const ident = m.need;
        // The child asks for lake tables' locations; this process reads the catalog.
        (resolveSource ? resolveSource(ident) : Promise.reject(new Error('no lake access')))
          .then((location) => write({ location }), (e: Error) => write({ error: e.message }));
      } else answer = m;
    };
    child.stdout.on('data', (c: Buffer) => {
      outLen += c.length;
      if (outLen > MAX_OUTPUT) { tooBig = true; child.kill('SIGKILL'); return; }
      pending += c.toString('utf8');
      for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) { onLine(pending.slice(0, i)); pending = pending.slice(i + 1); }
    });
    child.stderr.on('data', (c: Buffer) => { if (err.length < 64 * 1024) err += c.toString('utf8'); });
    child.on('error', (e) => { clearTimeout(timer); reject(new AppError('internal', `models: could not start the rendering process: ${e.message}`, { cause: e })); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return reject(new AppError('validation', `models: rendering was stopped after ${timeoutMs / 1000} s (a template that never ends?)`));
      if (tooBig) return reject(new AppError('validation', `models: the rendered output is over ${MAX_OUTPUT / 1024 / 1024} MiB`));
      if (/heap out of memory|Allocation failed/i.test(err)) return reject(new AppError('validation', `models: rendering ran out of its ${mem} MB of memory`));
      const a = answer as { ok: true; result: T } | { ok: false; error: { code: ErrorCode; message: string; field?: string } } | undefined;
      if (!a) return reject(new AppError('internal', `models: the rendering process ended (${signal ?? `exit ${code}`}) without an answer: ${err.trim().split('\n').slice(-3).join(' ')}`));
      if (a.ok) resolve(a.result);
      else reject(new AppError(a.error.code, a.error.message, { field: a.error.field }));
    });
    child.stdin.on('error', () => { /* the child died early: its close event reports why */ });
    write(req);
  });
}
