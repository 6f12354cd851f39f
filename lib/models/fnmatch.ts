/**
 * Python's fnmatch, as dbt matches selector values with it: `*` any run of
 * characters, `?` one character, `[abc]` / `[a-z]` one of a set, `[!abc]`
 * one outside it; a `[` with no closing `]` is itself. Case-sensitive (POSIX).
 * With `segment`, `*` and `?` stop at `/` and a `**` segment crosses folders,
 * as pathlib's glob reads a path (dbt's `path:` method).
 */
export function fnmatchRegExp(pattern: string, o: { segment?: boolean } = {}): RegExp {
  const any = o.segment ? '[^/]*' : '[\\s\\S]*'; const one = o.segment ? '[^/]' : '[\\s\\S]';
  let re = ''; let i = 0;
  while (i < pattern.length) {
    const c = pattern[i++];
    if (c === '*') {
      // a `**` path segment: any number of folders (none included)
      if (o.segment && pattern[i] === '*' && (i === 1 || pattern[i - 2] === '/') && (i + 1 === pattern.length || pattern[i + 1] === '/')) {
        i++;
        if (pattern[i] === '/') { i++; re += '(?:[^/]+/)*'; } else re += '[\\s\\S]*';
      } else re += any;
    } else if (c === '?') re += one;
    else if (c === '[') {
      let j = i;
      if (pattern[j] === '!') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j++;
      if (j >= pattern.length) { re += '\\['; continue; }
      let set = pattern.slice(i, j).replace(/[\\\]^[]/g, '\\$&');
      if (set.startsWith('!')) set = '^' + set.slice(1);
      re += `[${set}]`; i = j + 1;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function fnmatch(name: string, pattern: string): boolean {
  return fnmatchRegExp(pattern).test(name);
}

/** Whether a selector value holds a wildcard (dbt looks for `*`, `?`, `[` or `]`). */
export function hasWildcard(s: string): boolean {
  return /[*?[\]]/.test(s);
}
