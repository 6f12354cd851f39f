import { AppError } from '../../errors';
/**
 * Just enough TQL parsing for the Striim emulator: statement splitting (quotes
 * respected) and the property lists of CREATE SOURCE / TARGET.
 */

/** Split TQL into statements on `;` outside single/double quotes and `--` comments. */
export function splitTql(tql: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q: '"' | "'" | null = null;
  for (let i = 0; i < tql.length; i++) {
    const c = tql[i];
    if (q) {
      cur += c;
      if (c === '\\' && q === '"' && i + 1 < tql.length) { cur += tql[++i]; continue; }
      if (c === q) {
        if (q === "'" && tql[i + 1] === "'") { cur += tql[++i]; continue; }
        q = null;
      }
      continue;
    }
    if (c === '-' && tql[i + 1] === '-') { while (i < tql.length && tql[i] !== '\n') i++; cur += ' '; continue; }
    if (c === '"' || c === "'") { q = c; cur += c; continue; }
    if (c === ';') { if (cur.trim()) out.push(cur.trim()); cur = ''; continue; }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** Parse `Key: 'v', Key2: "v2", Key3: true, Key4: 100` into a map (keys as written). */
export function parseProps(body: string): Record<string, string> {
  const props: Record<string, string> = {};
  let i = 0;
  const n = body.length;
  const skipWs = () => { while (i < n && /[\s,]/.test(body[i])) i++; };
  while (i < n) {
    skipWs();
    const km = /^[A-Za-z_][\w]*/.exec(body.slice(i));
    if (!km) break;
    const key = km[0];
    i += key.length;
    while (i < n && /\s/.test(body[i])) i++;
    if (body[i] !== ':') throw new AppError('validation', `tql: expected ':' after ${key}`);
    i++;
    while (i < n && /\s/.test(body[i])) i++;
    let val = '';
    const c = body[i];
    if (c === '"' || c === "'") {
      i++;
      while (i < n) {
        const d = body[i];
        if (c === '"' && d === '\\' && i + 1 < n) { val += body[i + 1]; i += 2; continue; }
        if (d === c) {
          if (c === "'" && body[i + 1] === "'") { val += "'"; i += 2; continue; }
          i++;
          break;
        }
        val += d;
        i++;
      }
    } else {
      const m = /^[^,)\s]+/.exec(body.slice(i));
      val = m ? m[0] : '';
      i += val.length;
    }
    props[key] = val;
  }
  return props;
}

/** Look a property up case-insensitively. */
export function prop(props: Record<string, string>, key: string): string | undefined {
  const k = Object.keys(props).find((x) => x.toLowerCase() === key.toLowerCase());
  return k === undefined ? undefined : props[k];
}

/**
 * `CREATE [OR REPLACE] SOURCE|TARGET name USING [ns.]Adapter ( props ) OUTPUT TO s | INPUT FROM s`.
 * The property body is the text between the first `(` after USING and its matching `)`.
 */
export function parseComponent(stmt: string): { kind: 'SOURCE' | 'TARGET'; name: string; adapter: string; props: Record<string, string>; stream: string | null } | null {
  const head = /^create\s+(?:or\s+replace\s+)?(source|target)\s+([\w.]+)\s+using\s+([\w.]+)\s*\(/i.exec(stmt);
  if (!head) return null;
  let i = head[0].length;
  let depth = 1;
  let q: string | null = null;
  const start = i;
  for (; i < stmt.length && depth > 0; i++) {
    const c = stmt[i];
    if (q) {
      if (c === '\\' && q === '"') { i++; continue; }
      if (c === q) q = null;
      continue;
    }
    if (c === '"' || c === "'") q = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
  }
  if (depth !== 0) throw new AppError('validation', 'tql: unbalanced parentheses in component properties');
  const props = parseProps(stmt.slice(start, i - 1));
  const tail = /(output\s+to|input\s+from)\s+([\w.]+)/i.exec(stmt.slice(i));
  return { kind: head[1].toUpperCase() as 'SOURCE' | 'TARGET', name: head[2], adapter: head[3].split('.').pop()!, props, stream: tail?.[2] ?? null };
}
