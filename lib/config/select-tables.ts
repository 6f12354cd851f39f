import { AppError } from '../errors';
import type { TableDef } from './tables-json';

/**
 * Pick tables by OWNER.TABLE, TABLE, subquery name or lake name
 * (case-insensitive), in the order asked; none asked means all. An unknown
 * name is a usage error naming `field` and the known lake names.
 * @param field how the caller names the list: `--tables` on the command line (Default), `params.tables` in a job
 */
export function selectTables(all: TableDef[], wanted: string[], field = '--tables'): TableDef[] {
  if (!wanted.length) return all;
  const out: TableDef[] = [];
  for (const w of wanted) {
    const k = w.trim().toLowerCase();
    const hit = all.filter((d) => d.lakeName === k || d.source.toLowerCase() === k || d.source.toLowerCase().split('.').pop() === k || (d.entry.name ?? '').toLowerCase() === k);
    if (!hit.length) throw new AppError('usage', `${field}: unknown table ${w} (known: ${all.map((d) => d.lakeName).join(', ')})`, { field });
    for (const h of hit) if (!out.includes(h)) out.push(h);
  }
  return out;
}
