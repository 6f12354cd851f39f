import { parse } from '@huggingface/jinja';
import { AppError } from '../errors';
import { Interpreter, Scope } from './template-interpreter';
import { TemplateSyntaxError, tokenize, type Token } from './template-lexer';
import { DEFAULT_LIMITS, Dict, Fn, Namespace, TemplateError, fromHost, str, toHost, type TemplateLimits, type Value } from './template-values';
import { Lru } from '../cache/lru';

/**
 * Model, test and macro templates: Jinja read by a linear lexer
 * (template-lexer.ts) and @huggingface/jinja's parser, then run by our own
 * interpreter (template-interpreter.ts), whose values are its own. A
 * template sees only the functions below (ref, source, config, var,
 * is_incremental, this) and Jinja's globals; there is no loader, so
 * include/import/extends do not exist; and every render runs under
 * TemplateLimits. Rendering happens outside the web process (see
 * render-child.ts): the limits bound a template's work, the child's time
 * and memory caps bound the process.
 */

/** Functions (and values) a template may use; everything else is undefined. */
export interface TemplateContext {
  ref(name: string): string;
  source(a: string, b?: string): string;
  config(opts: Record<string, unknown>): string;
  var(name: string, fallback?: unknown): unknown;
  is_incremental(): boolean;
  this: string;
  /** dbt's doc('name'): a docs block's text. Only descriptions have it. (Default: undefined, as in models) */
  doc?(name: string): string;
  /** dbt's env_var('NAME', default): only dbt_project.yml has it (project-render.ts says which names). (Default: undefined) */
  env_var?(name: string, fallback?: string): string;
}

type Program = { type: 'Program'; body: unknown[] };

const BLOCKS = new Map([['if', 'endif'], ['for', 'endfor'], ['macro', 'endmacro'], ['call', 'endcall'], ['filter', 'endfilter'], ['set', 'endset']]);

/**
 * Tag-level structure check before parsing, so an unclosed or mismatched
 * block is reported with the line of its opening tag (the parser only sees
 * the end of the input).
 */
function checkBlocks(tokens: Token[]): void {
  const open: { tag: string; line: number }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].type !== 'OpenStatement' || tokens[i + 1]?.type !== 'Identifier') continue;
    const tag = tokens[i + 1].value; const line = tokens[i].line;
    if (tag === 'set') {
      // `{% set x %}…{% endset %}` is a block; `{% set x = … %}` is not.
      let j = i + 2; while (j < tokens.length && tokens[j].type !== 'CloseStatement' && tokens[j].type !== 'Equals') j++;
      if (tokens[j]?.type === 'CloseStatement') open.push({ tag, line });
    } else if (BLOCKS.has(tag)) open.push({ tag, line });
    else if (tag.startsWith('end')) {
      const top = open.pop();
      if (!top) throw new TemplateSyntaxError(`{% ${tag} %} closes nothing`, line);
      if (BLOCKS.get(top.tag) !== tag) throw new TemplateSyntaxError(`{% ${tag} %} where {% ${BLOCKS.get(top.tag)} %} was expected for the {% ${top.tag} %} of line ${top.line}`, line);
    } else if (['include', 'import', 'from', 'extends', 'block', 'raw', 'do', 'with', 'autoescape'].includes(tag)) {
      throw new TemplateSyntaxError(`{% ${tag} %} is not supported in model templates`, line);
    }
  }
  const top = open.pop();
  if (top) throw new TemplateSyntaxError(`{% ${top.tag} %} is never closed (expected {% ${BLOCKS.get(top.tag)} %})`, top.line);
}

interface Compiled { program: Program; tokens: Token[] }

function compile(text: string): Compiled {
  const tokens = tokenize(text);
  checkBlocks(tokens);
  // The parser reads tokens by index; the highest index it touched is where it stopped.
  let reached = 0;
  const watched = new Proxy(tokens, {
    get(t, k, r) { if (typeof k === 'string' && /^\d+$/.test(k)) reached = Math.max(reached, Number(k)); return Reflect.get(t, k, r); },
  });
  try {
    return { program: parse(watched as never) as unknown as Program, tokens };
  } catch (e) {
    const at = tokens[Math.min(reached, tokens.length - 1)];
    const msg = (e as Error).message.replace(/^Parser Error: /, '').replace(/\. \w+ !== \w+\.$/, '');
    if (e instanceof RangeError) throw new TemplateSyntaxError('the template is nested too deeply', at?.line);
    throw new TemplateSyntaxError(e instanceof TypeError ? 'unexpected end of the template' : msg, at?.line);
  }
}

// The project's macros are the same text for every file of a parse: compile them once.
const macroCache = new Lru<string, Compiled>({ max: 16 });
function compileMacros(text: string): Compiled {
  let c = macroCache.get(text);
  if (!c) { c = compile(text); macroCache.set(text, c); }
  return c;
}

/**
 * Where line `line` of a project's joined macros comes from: the file named
 * by the nearest marker comment above it (project.ts's macroFileMarker),
 * and the line within that file.
 */
function macroSource(preamble: string, line: number): { file?: string; line: number } {
  const lines = preamble.split('\n');
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const m = /^\{# file: (.*) #\}$/.exec(lines[i]);
    if (m) return { file: m[1], line: line - (i + 1) };
  }
  return { line };
}

/** The line where a name first appears inside a tag, for run-time errors. */
function lineOfName(tokens: Token[], name: string | undefined): number | undefined {
  if (!name) return undefined;
  let inTag = false;
  for (const t of tokens) {
    if (t.type === 'OpenExpression' || t.type === 'OpenStatement') inTag = true;
    else if (t.type === 'CloseExpression' || t.type === 'CloseStatement') inTag = false;
    else if (inTag && t.type === 'Identifier' && t.value === name) return t.line;
  }
  return undefined;
}

function hostFn(name: string, f: (a: Value[], kw: Map<string, Value>) => Value): Fn {
  return new Fn(name, (a, kw) => {
    try { return f(a, kw); } catch (e) {
      // The template's own errors (an unset var, a bad source name: TemplateError, with the
      // function's name so the line is found) and the product's AppErrors pass as they are.
      if (e instanceof AppError) throw e;
      throw new TemplateError((e as Error).message, name);
    }
  });
}

function stringArg(v: Value | undefined, fn: string, what: string): string {
  if (typeof v !== 'string') throw new TemplateError(`${fn}() takes ${what} as a string`, fn);
  return v;
}

function contextScope(it: Interpreter, ctx: TemplateContext): Scope {
  const s = it.globalScope();
  s.set('ref', hostFn('ref', (a) => ctx.ref(stringArg(a[a.length - 1], 'ref', 'a model name'))));
  s.set('source', hostFn('source', (a) => ctx.source(stringArg(a[0], 'source', 'a source name'), a.length > 1 ? stringArg(a[1], 'source', 'a table name') : undefined)));
  s.set('config', hostFn('config', (a, kw) => {
    const o: Record<string, unknown> = {};
    if (a[0] instanceof Dict || a[0] instanceof Namespace) Object.assign(o, toHost(a[0], 'config()'));
    Object.assign(o, toHost(new Dict(kw), 'config()'));
    return ctx.config(o);
  }));
  s.set('var', hostFn('var', (a, kw) => {
    const name = stringArg(a[0], 'var', 'a variable name');
    const dflt = a.length > 1 ? a[1] : kw.get('default');
    return fromHost(dflt === undefined ? ctx.var(name) : ctx.var(name, toHost(dflt, 'var()')));
  }));
  s.set('is_incremental', hostFn('is_incremental', () => ctx.is_incremental()));
  s.set('this', ctx.this);
  if (ctx.doc) { const doc = ctx.doc; s.set('doc', hostFn('doc', (a) => doc(stringArg(a[a.length - 1], 'doc', 'a docs block name')))); }
  if (ctx.env_var) {
    const envVar = ctx.env_var;
    s.set('env_var', hostFn('env_var', (a, kw) => {
      const dflt = a.length > 1 ? a[1] : kw.get('default');
      // dbt's env_var takes its default as given and returns a string; a none default counts as none given
      return envVar(stringArg(a[0], 'env_var', 'a variable name'), dflt === undefined || dflt === null ? undefined : str(dflt, it.budget));
    }));
  }
  return s;
}

/**
 * Render one template. `preamble` (the project's macros) is run first so its
 * macros are in scope, as dbt makes project macros global; it is compiled on
 * its own, so line numbers in errors are those of the model's file. Errors
 * become an AppError (validation) naming the file and line.
 */
export function renderTemplate(source: string, ctx: TemplateContext, opts: { file: string; preamble?: string; limits?: Partial<TemplateLimits> }): string {
  let where = opts.file; let tokens: Token[] = [];
  try {
    const it = new Interpreter({ ...DEFAULT_LIMITS, ...opts.limits });
    const scope = contextScope(it, ctx);
    if (opts.preamble?.trim()) {
      where = `${opts.file}: in the project's macros`;
      const macros = compileMacros(opts.preamble);
      tokens = macros.tokens;
      it.render(macros.program, scope);
    }
    where = opts.file;
    const own = compile(source);
    tokens = own.tokens;
    return str(it.render(own.program, new Scope(scope)), it.budget);
  } catch (e) {
    // Template errors get the file and line below; any other AppError (an unset var, a bad ref) is thrown as it is.
    if (e instanceof AppError && !(e instanceof TemplateSyntaxError) && !(e instanceof TemplateError)) throw e;
    let line: number | undefined;
    let msg = (e as Error).message ?? String(e);
    if (e instanceof TemplateSyntaxError) line = e.line;
    else if (e instanceof TemplateError) {
      line = lineOfName(tokens, e.hint);
      // A run-time error inside a project macro: its name is in the macros, not in this file.
      if (line === undefined && where === opts.file && opts.preamble && e.hint) {
        const inMacros = lineOfName(compileMacros(opts.preamble).tokens, e.hint);
        if (inMacros !== undefined) { const at = macroSource(opts.preamble, inMacros); if (at.file) msg = `${msg} (in ${at.file}, line ${at.line})`; }
      }
    } else if (e instanceof RangeError) msg = 'the template is nested too deeply';
    else msg = `template error: ${msg}`;
    if (where !== opts.file && line !== undefined) {
      const at = macroSource(opts.preamble ?? '', line);
      if (at.file) { where = `${opts.file}: in ${at.file}`; line = at.line; }
    }
    throw new AppError('validation', `models: ${where}: ${line ? `line ${line}: ` : ''}${msg}`, { cause: e });
  }
}
