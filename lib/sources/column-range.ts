/**
 * Column-range split math: equi-depth boundaries from a sorted sample and the
 * half-open predicates built on them. Pure.
 */

/** `k-1` strictly increasing boundaries cutting a sorted sample into `k` equal-count parts. */
export function equiDepthBounds(sortedSample: string[], chunks: number): string[] {
  const n = sortedSample.length;
  if (chunks <= 1 || n === 0) return [];
  const out: string[] = [];
  for (let k = 1; k < chunks; k++) {
    const v = sortedSample[Math.min(n - 1, Math.floor((k * n) / chunks))];
    // The sample is sorted by the typed value; equal neighbours collapse.
    if (out.at(-1) !== v && v !== sortedSample[0]) out.push(v);
  }
  return out;
}

/**
 * Predicates for `bounds.length + 1` slices: the first is open below and also
 * takes the NULLs (no half-open range would), the last is open above, the
 * middle ones are `col >= lo AND col < hi`. One slice is `1=1`.
 */
export function columnPredicates(column: string, literals: string[]): { predicate: string; lo?: string; hi?: string }[] {
  if (literals.length === 0) return [{ predicate: '1=1' }];
  const out: { predicate: string; lo?: string; hi?: string }[] = [];
  out.push({ predicate: `(${column} < ${literals[0]} OR ${column} IS NULL)`, hi: literals[0] });
  for (let i = 1; i < literals.length; i++) {
    out.push({ predicate: `${column} >= ${literals[i - 1]} AND ${column} < ${literals[i]}`, lo: literals[i - 1], hi: literals[i] });
  }
  out.push({ predicate: `${column} >= ${literals.at(-1)}`, lo: literals.at(-1) });
  return out;
}
