import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOracle } from './oracle-driver';

/**
 * No Oracle client libraries exist on this host: thick mode cannot load here,
 * which is exactly what lets these tests pin the loader's rules (a configured
 * client dir demands thick; without one, thin is the fallback; the mode is
 * then fixed for the process).
 */
describe('loadOracle (one node-oracledb loader)', () => {
  const noClient = fs.mkdtempSync(path.join(os.tmpdir(), 'no-instant-client-'));
  it('a configured client dir requires thick mode and says so when the Instant Client is not there', () => {
    expect(() => loadOracle({ clientLibDir: noClient })).toThrow(/sources: Oracle thick mode: cannot load the Instant Client from .*no-instant-client-/);
  });
  it('a client dir missing on this host is ignored; without one, thick is tried and thin is the fallback, with a warning', () => {
    const warnings: string[] = [];
    const logger = { warn: (m: string) => warnings.push(m) } as never;
    const r = loadOracle({ clientLibDir: '/no/such/instantclient', logger });
    expect(r.mode).toBe('thin');
    expect(warnings.join('\n')).toMatch(/thick mode unavailable, using thin mode/);
    expect(typeof r.oracledb.getConnection).toBe('function');
  });
  it('once thin, a demand for thick fails clearly (node-oracledb fixes the mode per process)', () => {
    expect(loadOracle({ mode: 'thin' }).mode).toBe('thin');
    expect(() => loadOracle({ mode: 'thick' })).toThrow(/already uses thin mode/);
    expect(() => loadOracle({ clientLibDir: noClient })).toThrow(/already uses thin mode/);
  });
});
