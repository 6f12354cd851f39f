/**
 * The message for a table file that could not be read: "missing" only when
 * the store said it does not exist (ENOENT); a store that failed (503, a
 * dropped connection) is "cannot read", so nobody goes looking for a lost file.
 */
export function unreadable(ident: string, what: string, path: string, e: unknown): string {
  if ((e as { code?: unknown })?.code === 'ENOENT') return `lake: table ${ident}: missing ${what} ${path}`;
  return `lake: table ${ident}: cannot read ${what} ${path}: ${(e as Error)?.message ?? String(e)}`;
}
