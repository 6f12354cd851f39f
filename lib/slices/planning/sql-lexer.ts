/**
 * A small SQL lexer: enough to find the driving table, top-level clauses and
 * stray `|` characters without being fooled by string literals, quoted
 * identifiers, comments or hints. Not a parser: everything it does not
 * recognise passes through verbatim.
 */
export type TokenType = 'name' | 'string' | 'comment' | 'ws' | 'punct' | 'number' | 'other';

export interface Token {
  type: TokenType;
  text: string;
  start: number;
  end: number;
  /** Parenthesis depth at the token (0 = top level). */
  depth: number;
}

const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_$#]/;

export function lexSql(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let depth = 0;
  const push = (type: TokenType, start: number, end: number, d = depth) => out.push({ type, text: sql.slice(start, end), start, end, depth: d });
  while (i < sql.length) {
    const c = sql[i];
    const start = i;
    if (/\s/.test(c)) {
      while (i < sql.length && /\s/.test(sql[i])) i++;
      push('ws', start, i);
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
      push('comment', start, i);
    } else if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? sql.length : close + 2;
      push('comment', start, i);
    } else if (c === "'") {
      i++;
      while (i < sql.length) {
        if (sql[i] === "'" && sql[i + 1] === "'") { i += 2; continue; }
        if (sql[i] === "'") { i++; break; }
        i++;
      }
      push('string', start, i);
    } else if (NAME_START.test(c) || c === '"') {
      // A possibly qualified name: part(.part)* where a part is bare or "quoted".
      for (;;) {
        if (sql[i] === '"') {
          const close = sql.indexOf('"', i + 1);
          i = close < 0 ? sql.length : close + 1;
        } else if (i < sql.length && NAME_START.test(sql[i])) {
          while (i < sql.length && NAME_PART.test(sql[i])) i++;
        } else break;
        if (sql[i] === '.' && (sql[i + 1] === '"' || NAME_START.test(sql[i + 1] ?? ''))) { i++; continue; }
        break;
      }
      push('name', start, i);
    } else if (/[0-9]/.test(c)) {
      while (i < sql.length && /[0-9.eE]/.test(sql[i])) i++;
      push('number', start, i);
    } else if (c === '(') {
      push('punct', i, i + 1);
      depth++;
      i++;
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
      push('punct', i, i + 1);
      i++;
    } else {
      i++;
      push(/[,;.|=<>!+*\/-]/.test(c) ? 'punct' : 'other', start, i);
    }
  }
  return out;
}

/** Unquoted parts fold case-insensitively; quoted parts compare exactly. */
export function nameParts(text: string): string[] {
  const parts: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      const close = text.indexOf('"', i + 1);
      parts.push(text.slice(i + 1, close < 0 ? text.length : close));
      i = close < 0 ? text.length : close + 1;
    } else {
      let j = i;
      while (j < text.length && text[j] !== '.') j++;
      parts.push(text.slice(i, j).toUpperCase());
      i = j;
    }
    if (text[i] === '.') i++;
  }
  return parts;
}

/** Significant tokens (no whitespace, no comments except hints are kept as comments). */
export function significant(tokens: Token[]): Token[] {
  return tokens.filter((t) => t.type !== 'ws' && t.type !== 'comment');
}
