import { openSourceQuery, type SourceDescriptor, type SourceQuery } from '../../sources';
import type { RunSettings } from './settings';

/** The slice source as the orchestrator needs it: watermark capture and reconcile counts. */
export type SourceDb = SourceQuery;

/** The run settings' source (--source-url / SOURCE_PG_* / ORACLE_*) as a descriptor; null when none is configured. */
export function runSourceDescriptor(s: Pick<RunSettings, 'sourceEngine' | 'sourceUrl' | 'oracle'>): SourceDescriptor | null {
  if (s.sourceEngine === 'postgres') return s.sourceUrl ? { kind: 'postgres', name: 'slices', connectionString: s.sourceUrl } : null;
  return s.oracle ? { kind: 'oracle', name: 'slices', dsn: s.oracle.connectString, user: s.oracle.user, password: s.oracle.password } : null;
}

/**
 * Open the configured source; null when none is configured. Postgres TLS per
 * sslmode; Oracle through lib/sources' one driver loader (thick mode when a
 * client dir is given — what Oracle 11g needs).
 */
export async function openSource(s: Pick<RunSettings, 'sourceEngine' | 'sourceUrl' | 'oracle'>, o: { oracleClientLibDir?: string } = {}): Promise<SourceDb | null> {
  const d = runSourceDescriptor(s);
  return d ? openSourceQuery(d, { oracleClientLibDir: o.oracleClientLibDir }) : null;
}
