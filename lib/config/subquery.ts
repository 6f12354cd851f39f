import { BRANCH_ID } from './lake-columns';

/**
 * Checks on an inline-view source (`table` given as `(SELECT …)`): it must be
 * one parenthesised SELECT/WITH with balanced parentheses, no statement
 * separator, and must not project BRANCH_ID (Tributary injects that column).
 */
export function isSubquery(text: string): boolean {
  return text.trim().startsWith('(');
}

/** Returns a problem description, or null when the subquery is acceptable. */
export function checkSubquery(text: string): string | null {
  const s = text.trim();
  if (!s.startsWith('(') || !s.endsWith(')')) return 'a subquery must be wrapped in parentheses';
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) { if (c === quote) quote = null; continue; }
    if (c === "'" || c === '"') { quote = c; continue; }
    if (c === '(') depth++;
    else if (c === ')') { depth--; if (depth === 0 && i !== s.length - 1) return 'a subquery must be one parenthesised query'; if (depth < 0) return 'unbalanced parentheses'; }
    else if (c === ';') return 'a subquery must not contain ";"';
    else if (c === '-' && s[i + 1] === '-') return 'a subquery must not contain comments';
    else if (c === '/' && s[i + 1] === '*') return 'a subquery must not contain comments';
  }
  if (quote) return 'unterminated quote';
  if (depth !== 0) return 'unbalanced parentheses';
  const inner = s.slice(1, -1).trim();
  if (!/^(SELECT|WITH)\b/i.test(inner)) return 'a subquery must start with SELECT or WITH';
  if (projectedNames(inner).some((n) => n.toUpperCase() === BRANCH_ID)) return `the subquery projects ${BRANCH_ID} (it collides with the injected branch column; alias it)`;
  return null;
}

/** Output column names of the top-level select list (alias, or the last identifier of an expression). */
export function projectedNames(select: string): string[] {
  const m = /^\s*(?:WITH\b[\s\S]*?\)\s*)?SELECT\s+(?:DISTINCT\s+)?/i.exec(select);
  if (!m) return [];
  const rest = select.slice(m[0].length);
  const items: string[] = [];
  let depth = 0;
  let cur = '';
  let quote: string | null = null;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (quote) { cur += c; if (c === quote) quote = null; continue; }
    if (c === "'" || c === '"') { quote = c; cur += c; continue; }
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (depth === 0 && c === ',') { items.push(cur); cur = ''; continue; }
    if (depth === 0 && /^\sFROM\s/i.test(rest.slice(i, i + 6))) { items.push(cur); cur = ''; break; }
    cur += c;
  }
  if (cur.trim()) items.push(cur);
  return items.map((it) => {
    const t = it.trim();
    const alias = /(?:\bAS\s+|\s)"?([A-Za-z0-9_$#]+)"?\s*$/i.exec(t);
    if (alias && /\s/.test(t)) return alias[1];
    const last = /([A-Za-z0-9_$#]+)"?\s*$/.exec(t);
    return last ? last[1] : t;
  });
}
