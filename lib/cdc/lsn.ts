/**
 * PostgreSQL log sequence numbers: 64-bit positions in the WAL, written `X/Y` (two hex halves).
 * Held as bigint so they compare and subtract exactly (lag in bytes is a difference of two).
 */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (!m) throw new Error(`cdc: not an LSN: ${text}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
