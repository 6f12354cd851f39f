/**
 * Structured logging with a scope. Engines receive a Logger from their caller
 * (worker job, CLI, test) and make children for `table`, `branch`, `slice`…
 * Secrets in fields are redacted before any sink sees them.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Fields = Record<string, unknown>;

export interface LogRecord { ts: Date; level: Level; message: string; fields: Fields }
export type Sink = (r: LogRecord) => void;

export interface Logger {
  debug(message: string, fields?: Fields): void;
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
  child(fields: Fields): Logger;
}

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /pass(word)?|secret|token|connectionstring|apikey|authorization|pwd/i;

/** Replace secret-looking values (by key, and inside URLs) with `***`. */
export function redact(fields: Fields): Fields {
  const out: Fields = {};
  for (const [k, v] of Object.entries(fields)) {
    if (SECRET_KEY.test(k)) out[k] = '***';
    else if (typeof v === 'string') out[k] = v.replace(/(\/\/[^:/@\s]+:)[^@\s]+@/g, '$1***@');
    else if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) out[k] = redact(v as Fields);
    else out[k] = v;
  }
  return out;
}

export function createLogger(sink: Sink, opts: { level?: Level; fields?: Fields } = {}): Logger {
  const min = ORDER[opts.level ?? 'info'];
  const base = opts.fields ?? {};
  const emit = (level: Level, message: string, fields?: Fields) => {
    if (ORDER[level] < min) return;
    sink({ ts: new Date(), level, message, fields: redact({ ...base, ...fields }) });
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(sink, { level: opts.level, fields: { ...base, ...fields } }),
  };
}

/** Human-readable lines on stderr (CLI, serve). */
export function consoleSink(stream: NodeJS.WritableStream = process.stderr): Sink {
  return (r) => {
    // a field given as undefined is absent (as in the JSON lines), not `error=undefined`
    const f = Object.entries(r.fields).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
    stream.write(`${r.ts.toISOString()} ${r.level.padEnd(5)} ${r.message}${f ? ' ' + f : ''}\n`);
  };
}

/** A logger that drops everything (tests that do not look at logs). */
export const silentLogger: Logger = createLogger(() => {}, { level: 'error' });
export { createRepeatLimiter, collapseRepeats, formatCount, type RepeatLimiter, type RepeatLimiterOptions } from './repeat-limiter';
