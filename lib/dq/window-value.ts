const TS_TEXT = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?$/;

/** Validate a --since / --until value; returns an error message or null. */
export function checkWindowValue(v: string): string | null {
  if (!TS_TEXT.test(v.trim())) return 'must be YYYY-MM-DD or YYYY-MM-DD HH:MM:SS';
  const [y, m, d] = v.trim().slice(0, 10).split('-').map(Number);
  const back = new Date(Date.UTC(y, m - 1, d));
  if (back.getUTCMonth() !== m - 1 || back.getUTCDate() !== d) return 'not a calendar date';
  return null;
}
