import { describe, expect, it } from 'vitest';
import { describeSource, oracleBranchOptions, postgresBranchOptions, type OracleDescriptor, type PostgresDescriptor } from '../sources';
import { sourceDescriptorOf, sourceFromEnv } from './source-descriptor';

describe('connection → source descriptor (the one mapping)', () => {
  it('maps Postgres params and secrets, sslmode included; a URL secret wins', () => {
    const d = sourceDescriptorOf({ name: 'khamis', kind: 'postgres', params: { host: 'pg.local', port: '5433', dbname: 'oasis', username: 'reader', sslmode: 'verify-full', sslrootcert: '/etc/ca.pem', pool_size: 6, fetch_batch_size: 5000 }, secrets: { password: 'p' } });
    expect(d).toEqual({ kind: 'postgres', name: 'khamis', host: 'pg.local', port: 5433, database: 'oasis', user: 'reader', password: 'p',
      sslmode: 'verify-full', sslrootcert: '/etc/ca.pem', sslcert: undefined, sslkey: undefined, connectionString: undefined, poolSize: 6, fetchBatchSize: 5000 });
    expect(describeSource(d)).toBe('postgres reader@pg.local:5433/oasis');
    expect(JSON.stringify(describeSource(d))).not.toContain('"p"');
    const u = sourceDescriptorOf({ name: 'u', kind: 'postgres', params: { host: 'ignored' }, secrets: { url: 'postgres://a:b@h:6000/db?sslmode=disable' } });
    expect(u).toMatchObject({ connectionString: 'postgres://a:b@h:6000/db?sslmode=disable' });
    expect(describeSource(u)).toBe('postgres a@h:6000/db');
    expect(postgresBranchOptions(d as PostgresDescriptor, { poolSize: 2 })).toMatchObject({ branch: 'khamis', host: 'pg.local', sslmode: 'verify-full', poolSize: 2 });
  });
  it('maps Oracle params: service name or SID, the connection\'s client dir and driver mode', () => {
    const d = sourceDescriptorOf({ name: 'alrabwah', kind: 'oracle', params: { user: 'etl', host: '10.0.0.5', port: 1521, service_name: 'OASIS', oracle_client_lib_dir: 'C:\\oracle\\ic', driver_mode: 'thick' }, secrets: { password: 'o' } });
    expect(d).toMatchObject({ kind: 'oracle', name: 'alrabwah', user: 'etl', password: 'o', host: '10.0.0.5', port: 1521, serviceName: 'OASIS', clientLibDir: 'C:\\oracle\\ic', driverMode: 'thick' });
    expect(describeSource(d)).toBe('oracle etl@10.0.0.5:1521/OASIS');
    const sid = sourceDescriptorOf({ name: 's', kind: 'oracle', params: { user: 'etl', host: 'h', sid: 'ORCL' }, secrets: {} });
    expect(describeSource(sid)).toBe('oracle etl@(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=h)(PORT=1521))(CONNECT_DATA=(SID=ORCL)))');
    // a Windows client dir does not exist here: ignored, the setting's candidate list is tried first
    expect(oracleBranchOptions(d as OracleDescriptor, { oracleClientLibDir: ['/no/such/dir'] }).clientLibDir).toBeUndefined();
    expect(() => sourceDescriptorOf({ name: 'mail', kind: 'smtp', params: {}, secrets: {} })).toThrow(/'mail' is a smtp connection/);
  });
  it('reads the seed\'s variables: SOURCE_PG_* with libpq\'s default sslmode, ORACLE_*, flags winning', () => {
    const env = { SOURCE_PG_HOST: '127.0.0.1', SOURCE_PG_PORT: '5544', SOURCE_PG_DATABASE: 'src', SOURCE_PG_USER: 'me', SOURCE_PG_PASSWORD: 'pw' };
    expect(sourceFromEnv(env)).toEqual({ kind: 'postgres', name: 'source', host: '127.0.0.1', port: 5544, database: 'src', user: 'me', password: 'pw', sslmode: undefined, sslrootcert: undefined });
    expect(sourceFromEnv({ ...env, SOURCE_PG_SSLMODE: 'require' })).toMatchObject({ sslmode: 'require' });
    expect(sourceFromEnv(env, { sourceUrl: 'postgres://x@y/z' })).toEqual({ kind: 'postgres', name: 'source', connectionString: 'postgres://x@y/z' });
    expect(() => sourceFromEnv({ ...env, SOURCE_PG_PORT: 'abc' })).toThrow("SOURCE_PG_PORT must be an integer, got 'abc'");
    expect(() => sourceFromEnv({})).toThrow(/no Oracle source/);
    expect(sourceFromEnv({ ORACLE_HOST: 'o', ORACLE_SERVICE: 'S', ORACLE_USER: 'u', ORACLE_PASSWORD: 'p' })).toMatchObject({ kind: 'oracle', host: 'o', port: 1521, serviceName: 'S', user: 'u', password: 'p' });
  });
});
