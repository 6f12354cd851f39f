import { AppError } from '../errors';
/**
 * The Jinja lexer the models' templates are read with: @huggingface/jinja's
 * `tokenize` (MIT License, Copyright (c) 2023 Hugging Face), adapted here for
 * two reasons. Each token carries the line it starts on, so errors point
 * into the user's own file. And the upstream pre-pass that strips its
 * `{% generation %}` tag runs a `(\s*){%` regex that is quadratic in a run of
 * whitespace (a 512 KiB file of spaces took minutes): untrusted text must
 * lex in linear time. Jinja's defaults otherwise: no trim_blocks or
 * lstrip_blocks, one trailing newline dropped, `{%-`/`-%}` strip.
 * The tokens feed the upstream parser unchanged.
 */

export const TOKEN = Object.freeze({
  Text: 'Text', NumericLiteral: 'NumericLiteral', StringLiteral: 'StringLiteral', Identifier: 'Identifier', Equals: 'Equals',
  OpenParen: 'OpenParen', CloseParen: 'CloseParen', OpenStatement: 'OpenStatement', CloseStatement: 'CloseStatement',
  OpenExpression: 'OpenExpression', CloseExpression: 'CloseExpression', OpenSquareBracket: 'OpenSquareBracket',
  CloseSquareBracket: 'CloseSquareBracket', OpenCurlyBracket: 'OpenCurlyBracket', CloseCurlyBracket: 'CloseCurlyBracket',
  Comma: 'Comma', Dot: 'Dot', Colon: 'Colon', Pipe: 'Pipe', CallOperator: 'CallOperator',
  AdditiveBinaryOperator: 'AdditiveBinaryOperator', MultiplicativeBinaryOperator: 'MultiplicativeBinaryOperator',
  ExponentiationBinaryOperator: 'ExponentiationBinaryOperator', ComparisonBinaryOperator: 'ComparisonBinaryOperator',
  UnaryOperator: 'UnaryOperator', Comment: 'Comment',
});
export type TokenType = keyof typeof TOKEN;

/** One token; `line` is 1-based, in the text given to `tokenize`. */
export interface Token { value: string; type: TokenType; line: number }

/** A template syntax error with the line it was found on. */
export class TemplateSyntaxError extends AppError {
  constructor(message: string, readonly line?: number) { super('validation', message); this.name = 'TemplateSyntaxError'; }
}

const MAPPING: [string, TokenType][] = [
  ['{%', 'OpenStatement'], ['%}', 'CloseStatement'], ['{{', 'OpenExpression'], ['}}', 'CloseExpression'],
  ['(', 'OpenParen'], [')', 'CloseParen'], ['{', 'OpenCurlyBracket'], ['}', 'CloseCurlyBracket'],
  ['[', 'OpenSquareBracket'], [']', 'CloseSquareBracket'], [',', 'Comma'], ['.', 'Dot'], [':', 'Colon'], ['|', 'Pipe'],
  ['<=', 'ComparisonBinaryOperator'], ['>=', 'ComparisonBinaryOperator'], ['==', 'ComparisonBinaryOperator'],
  ['!=', 'ComparisonBinaryOperator'], ['<', 'ComparisonBinaryOperator'], ['>', 'ComparisonBinaryOperator'],
  ['+', 'AdditiveBinaryOperator'], ['-', 'AdditiveBinaryOperator'], ['~', 'AdditiveBinaryOperator'],
  ['**', 'ExponentiationBinaryOperator'], ['*', 'MultiplicativeBinaryOperator'], ['//', 'MultiplicativeBinaryOperator'],
  ['/', 'MultiplicativeBinaryOperator'], ['%', 'MultiplicativeBinaryOperator'], ['=', 'Equals'],
];
const ESCAPES = new Map([['n', '\n'], ['t', '\t'], ['r', '\r'], ['b', '\b'], ['f', '\f'], ['v', '\v'], ["'", "'"], ['"', '"'], ['\\', '\\']]);
const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

export function tokenize(source: string): Token[] {
  // Jinja's default keep_trailing_newline=False.
  const src = source.endsWith('\n') ? source.slice(0, -1) : source;
  const tokens: Token[] = [];
  let pos = 0;
  let line = 1; let counted = 0;
  // Lines are counted forward only, so the whole pass stays linear.
  const lineAt = (p: number) => { for (; counted < p && counted < src.length; counted++) if (src.charCodeAt(counted) === 10) line++; return line; };
  const push = (value: string, type: TokenType, start: number) => tokens.push({ value, type, line: lineAt(start) });
  let curly = 0;

  const consumeWhile = (pred: (c: string) => boolean): string => {
    let out = '';
    while (pred(src[pos])) {
      if (src[pos] === '\\') {
        pos++;
        if (pos >= src.length) throw new TemplateSyntaxError('unexpected end of the template', lineAt(pos));
        const esc = src[pos++];
        if (esc === 'x' || esc === 'u') {
          const len = esc === 'x' ? 2 : 4; const hex = src.slice(pos, pos + len);
          if (hex.length !== len || /[^0-9a-f]/i.test(hex)) throw new TemplateSyntaxError(`invalid escape \\${esc}${hex}`, lineAt(pos));
          out += String.fromCharCode(parseInt(hex, 16)); pos += len; continue;
        }
        const un = ESCAPES.get(esc);
        if (un === undefined) throw new TemplateSyntaxError(`unexpected escaped character: ${esc}`, lineAt(pos));
        out += un; continue;
      }
      out += src[pos++];
      if (pos >= src.length) throw new TemplateSyntaxError('unexpected end of the template (an unclosed string or tag?)', lineAt(pos));
    }
    return out;
  };
  const stripTrailing = () => {
    const last = tokens.at(-1);
    if (last && last.type === 'Text') { last.value = last.value.trimEnd(); if (last.value === '') tokens.pop(); }
  };
  const skipLeading = () => { while (pos < src.length && isSpace(src[pos])) pos++; };

  main: while (pos < src.length) {
    const lastType = tokens.at(-1)?.type;
    if (lastType === undefined || lastType === 'CloseStatement' || lastType === 'CloseExpression' || lastType === 'Comment') {
      const start = pos;
      while (pos < src.length && !(src[pos] === '{' && (src[pos + 1] === '%' || src[pos + 1] === '{' || src[pos + 1] === '#'))) pos++;
      if (pos > start) { push(src.slice(start, pos), 'Text', start); continue; }
    }
    if (src[pos] === '{' && src[pos + 1] === '#') {
      const start = pos;
      pos += 2;
      const stripBefore = src[pos] === '-';
      if (stripBefore) pos++;
      const end = src.indexOf('#}', pos);
      if (end < 0) throw new TemplateSyntaxError('a comment {# is never closed with #}', lineAt(start));
      let comment = src.slice(pos, end);
      const stripAfter = comment.endsWith('-');
      if (stripAfter) comment = comment.slice(0, -1);
      if (stripBefore) stripTrailing();
      push(comment, 'Comment', start);
      pos = end + 2;
      if (stripAfter) skipLeading();
      continue;
    }
    if (src.startsWith('{%-', pos)) { stripTrailing(); push('{%', 'OpenStatement', pos); pos += 3; continue; }
    if (src.startsWith('{{-', pos)) { stripTrailing(); push('{{', 'OpenExpression', pos); curly = 0; pos += 3; continue; }
    consumeWhile(isSpace);
    if (src.startsWith('-%}', pos)) { push('%}', 'CloseStatement', pos); pos += 3; skipLeading(); continue; }
    if (src.startsWith('-}}', pos)) { push('}}', 'CloseExpression', pos); pos += 3; skipLeading(); continue; }
    const c = src[pos];
    const start = pos;
    if (c === '-' || c === '+') {
      const lt = tokens.at(-1)?.type;
      if (lt === 'Text' || lt === undefined) throw new TemplateSyntaxError(`unexpected character: ${c}`, lineAt(pos));
      if (!(lt === 'Identifier' || lt === 'NumericLiteral' || lt === 'StringLiteral' || lt === 'CloseParen' || lt === 'CloseSquareBracket')) {
        pos++;
        let num = consumeWhile(isDigit);
        if (num.length > 0 && src[pos] === '.' && isDigit(src[pos + 1])) { pos++; num = `${num}.${consumeWhile(isDigit)}`; }
        push(`${c}${num}`, num.length > 0 ? 'NumericLiteral' : 'UnaryOperator', start);
        continue;
      }
    }
    for (const [seq, type] of MAPPING) {
      if (seq === '}}' && curly > 0) continue;
      if (src.startsWith(seq, pos)) {
        push(seq, type, pos);
        if (type === 'OpenExpression') curly = 0; else if (type === 'OpenCurlyBracket') curly++; else if (type === 'CloseCurlyBracket') curly--;
        pos += seq.length;
        continue main;
      }
    }
    if (c === "'" || c === '"') {
      pos++;
      const s = consumeWhile((x) => x !== c);
      push(s, 'StringLiteral', start);
      pos++;
      continue;
    }
    if (isDigit(c)) {
      let num = consumeWhile(isDigit);
      if (tokens.at(-1)?.type !== 'Dot' && src[pos] === '.' && isDigit(src[pos + 1])) { pos++; num = `${num}.${consumeWhile(isDigit)}`; }
      push(num, 'NumericLiteral', start);
      continue;
    }
    if (isWord(c)) { push(consumeWhile(isWord), 'Identifier', start); continue; }
    throw new TemplateSyntaxError(`unexpected character: ${c}`, lineAt(pos));
  }
  return tokens;
}
