/**
 * ClickHouse reports a syntax error's place in the statement it parsed: the
 * model's rendered SQL wrapped in DDL (`CREATE VIEW … AS\n…`), or in the
 * guard's `formatQuerySingleLine('…')`, after the template ran. Users edit
 * the template. This maps such an error back to a line and column of the
 * model's own file: the error's place in the rendered SQL is ClickHouse's own
 * (line, col) — checked against the query text it quotes from that place
 * on, which is searched for when they disagree —, then the rendered line is
 * matched to the template line whose literal text (everything outside
 * `{{ }}`, `{% %}`, `{# #}`) it holds, nearest first. An error naming an
 * unknown identifier points at its first use in the file.
 */

export interface SourcePosition { line: number; col: number }

const SYNTAX = /failed at position (\d+)(?: \((.*?)\))?(?: \(line (\d+), col (\d+)\))?: ?/;
const IDENT = /(?:Unknown (?:expression or function )?identifier|Unknown column|Missing columns?:?|There's no column) [`'"]?([A-Za-z_][A-Za-z0-9_.]*)[`'"]?/;

/** The index in `text` of the character `bytes` UTF-8 bytes after `from` (ClickHouse counts bytes), or undefined past the end. */
function advanceBytes(text: string, from: number, bytes: number): number | undefined {
  let i = from;
  for (let n = 0; n < bytes; i++) {
    if (i >= text.length) return undefined;
    const c = text.codePointAt(i)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (c >= 0x10000) i++;
  }
  return i;
}

/** Where ClickHouse says the error is in `sql`: its `(line N, col M)`, else its `position P` (both 1-based, in bytes). */
function reportedOffset(m: RegExpExecArray, sql: string): number | undefined {
  if (m[3] !== undefined) {
    const lines = sql.split('\n');
    const line = Number(m[3]);
    if (line < 1 || line > lines.length) return undefined;
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    const at = advanceBytes(sql, start, Number(m[4]) - 1);
    return at !== undefined && at <= start + lines[line - 1].length ? at : undefined;
  }
  return advanceBytes(sql, 0, Number(m[1]) - 1);
}

/**
 * Where in `sql` (0-based offset) the error is. ClickHouse gives the place in
 * the statement it parsed (the guard parses the rendered SQL itself) and
 * quotes the query from there on: the place is taken when the quoted text
 * (or the failing token) is found there. Otherwise (a statement that wrapped
 * the SQL in DDL shifts the place) the quoted text is searched for: the first
 * occurrence at or after the reported place, else the last one before it.
 */
function offsetInRendered(message: string, sql: string): number | undefined {
  const m = SYNTAX.exec(message);
  if (!m) return undefined;
  const reported = reportedOffset(m, sql);
  // ClickHouse quotes the query from the failing token on, up to its end or a cut-off, then `. Expected …` or the end
  let rest = message.slice(m.index + m[0].length);
  const head = (m[2] ?? rest.split(/\s/)[0]).slice(0, 40);
  if (reported !== undefined && head && sql.startsWith(head, reported)) return reported;
  const candidates: number[] = [];
  for (const cut of [rest.indexOf('. Expected'), rest.lastIndexOf('. '), rest.length]) {
    if (cut < 0) continue;
    const r = rest.slice(0, cut).replace(/\s+$/, '');
    if (!r) continue;
    for (let i = sql.indexOf(r); i >= 0; i = sql.indexOf(r, i + 1)) candidates.push(i);
    if (candidates.length) { rest = r; break; }
  }
  if (!candidates.length) {
    // the token alone, `(>)`
    const tok = m[2];
    if (!tok) return reported;
    for (let i = sql.indexOf(tok); i >= 0; i = sql.indexOf(tok, i + 1)) candidates.push(i);
  }
  if (!candidates.length) return reported;
  if (reported !== undefined) return candidates.find((i) => i >= reported) ?? candidates[candidates.length - 1];
  // no place given: the rest of the query runs to its end, so prefer the occurrence that does
  const tail = candidates.filter((i) => sql.slice(i).replace(/\s+$/, '') === rest);
  return (tail.length ? tail : candidates)[tail.length ? tail.length - 1 : candidates.length - 1];
}

function lineCol(text: string, offset: number): SourcePosition {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}

/** The literal pieces of one template line and where each starts (0-based column). */
function literalPieces(line: string): { text: string; at: number }[] {
  const out: { text: string; at: number }[] = [];
  const re = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|\{#[\s\S]*?#\}/g;
  let last = 0;
  for (const m of line.matchAll(re)) {
    if (m.index! > last) out.push({ text: line.slice(last, m.index!), at: last });
    last = m.index! + m[0].length;
  }
  if (last < line.length) out.push({ text: line.slice(last), at: last });
  return out.filter((p) => p.text.trim() !== '');
}

/**
 * The template line and column that produced column `col` (1-based) of
 * rendered line `rline`, or undefined when no line of the template matches.
 */
export function renderedToSource(raw: string, rendered: string, rline: number, col: number): SourcePosition | undefined {
  const rtext = rendered.split('\n')[rline - 1];
  if (rtext === undefined) return undefined;
  const lines = raw.split('\n');
  // leading lines the render trimmed (a config() line) shift the rendered lines down
  let best: { line: number; col: number; dist: number } | undefined;
  lines.forEach((src, i) => {
    const pieces = literalPieces(src);
    if (!pieces.length) return;
    // every literal piece in the rendered line, in order (a piece's own leading/trailing blanks may differ)
    let from = 0; const at: number[] = [];
    for (const p of pieces) {
      const t = p.text.trim();
      const k = rtext.indexOf(t, from);
      if (k < 0) return;
      at.push(k - (p.text.length - p.text.trimStart().length)); from = k + t.length;
    }
    let c = col;
    const c0 = col - 1;
    const inPiece = pieces.findIndex((p, j) => c0 >= at[j] && c0 < at[j] + p.text.length);
    if (inPiece >= 0) c = pieces[inPiece].at + (c0 - at[inPiece]) + 1;
    else {
      // inside what a tag printed: point at the tag
      const after = pieces.findIndex((_, j) => at[j] > c0);
      const tagStart = after < 0 ? pieces[pieces.length - 1].at + pieces[pieces.length - 1].text.length : after === 0 ? 0 : pieces[after - 1].at + pieces[after - 1].text.length;
      c = (src.slice(tagStart).search(/\{[{%]/) >= 0 ? tagStart + src.slice(tagStart).search(/\{[{%]/) : tagStart) + 1;
    }
    const dist = Math.abs(i + 1 - rline);
    if (!best || dist < best.dist) best = { line: i + 1, col: c, dist };
  });
  return best && { line: best.line, col: best.col };
}

/**
 * A ClickHouse error about a model, pointed at the model's file: `line L,
 * col C: <message without ClickHouse's own position>`, or the message as it
 * was when its place cannot be found.
 */
export function pointAtSource(message: string, raw: string, rendered: string): { position?: SourcePosition; message: string } {
  const off = offsetInRendered(message, rendered);
  if (off !== undefined) {
    const r = lineCol(rendered, off);
    const pos = renderedToSource(raw, rendered, r.line, r.col);
    const cleaned = message.replace(SYNTAX, (_all, _p, tok) => `failed at ${tok ? `'${tok}'` : 'this token'}: `);
    if (pos) return { position: pos, message: cleaned };
  }
  const id = IDENT.exec(message);
  if (id) {
    const name = id[1].split('.').pop()!;
    const lines = raw.split('\n');
    for (let i = 0; i < lines.length; i++) {
      // a use outside template tags, as a whole word
      const pieces = literalPieces(lines[i]);
      for (const p of pieces) {
        const m = new RegExp(`(^|[^A-Za-z0-9_])(${name.replace(/[$]/g, '\\$&')})(?![A-Za-z0-9_])`).exec(p.text);
        if (m) return { position: { line: i + 1, col: p.at + m.index + m[1].length + 1 }, message };
      }
    }
  }
  return { message };
}
