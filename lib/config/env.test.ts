import { describe, expect, it, test } from 'vitest';
import { parseEnv } from './env';

const parse = (e: Record<string, string>) => parseEnv(e as unknown as NodeJS.ProcessEnv);

describe('env: s3:// warehouse settings', () => {
  it('collects the object-store settings for the lake', () => {
    const env = parse({
      TRIBUTARY_WAREHOUSE: 's3://lake/prod', AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK', AWS_REGION: 'eu-west-1',
      TRIBUTARY_S3_ENDPOINT: 'http://minio:9000', TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
    });
    expect(env.warehouse).toBe('s3://lake/prod');
    expect(env.s3).toEqual({ region: 'eu-west-1', accessKeyId: 'AK', secretAccessKey: 'SK', endpoint: 'http://minio:9000', forcePathStyle: true });
  });

  it('defaults: file:// warehouse under the data folder, no path style', () => {
    const env = parse({ TRIBUTARY_DATA_DIR: '/srv/trb' });
    expect(env.warehouse).toBe('file:///srv/trb/warehouse');
    expect(env.s3.forcePathStyle).toBe(false);
  });

  it('names the variable of a bad value', () => {
    expect(() => parse({ TRIBUTARY_WAREHOUSE: 'gs://bucket' })).toThrow(/TRIBUTARY_WAREHOUSE/);
    expect(() => parse({ TRIBUTARY_S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/TRIBUTARY_S3_FORCE_PATH_STYLE/);
    expect(() => parse({ TRIBUTARY_S3_ENDPOINT: 'minio:9000' })).toThrow(/TRIBUTARY_S3_ENDPOINT/);
  });
});

describe('env: TRIBUTARY_CDC_LAG_ALERT_BYTES', () => {
  it('reads bytes or PostgreSQL memory units; 0 (no alert) by default', () => {
    expect(parse({}).TRIBUTARY_CDC_LAG_ALERT_BYTES).toBe(0);
    expect(parse({ TRIBUTARY_CDC_LAG_ALERT_BYTES: '4096' }).TRIBUTARY_CDC_LAG_ALERT_BYTES).toBe(4096);
    expect(parse({ TRIBUTARY_CDC_LAG_ALERT_BYTES: '512MB' }).TRIBUTARY_CDC_LAG_ALERT_BYTES).toBe(512 * 1024 ** 2);
    expect(parse({ TRIBUTARY_CDC_LAG_ALERT_BYTES: '10GB' }).TRIBUTARY_CDC_LAG_ALERT_BYTES).toBe(10 * 1024 ** 3);
  });
  it('names the variable of a bad value', () => {
    expect(() => parse({ TRIBUTARY_CDC_LAG_ALERT_BYTES: '10 gigs' })).toThrow(/TRIBUTARY_CDC_LAG_ALERT_BYTES must be a size in bytes.*got '10 gigs'/);
    expect(() => parse({ TRIBUTARY_CDC_LAG_ALERT_BYTES: '-5' })).toThrow(/TRIBUTARY_CDC_LAG_ALERT_BYTES/);
  });
});

describe('env: the variables a models project\'s env_var() reads', () => {
  test('DBT_… names only; DBT_ENV_SECRET_…, Tributary\'s own settings and secrets never', () => {
    const env = parseEnv({ DATABASE_URL: 'postgres://u:p@localhost/x', TRIBUTARY_SECRET: 's'.repeat(32), AWS_SECRET_ACCESS_KEY: 'k', HOME: '/root', DBT_TARGET_SCHEMA: 'raw', DBT_ENV_SECRET_TOKEN: 't', DBT_ENV_CUSTOM_ENV_team: 'data' } as unknown as NodeJS.ProcessEnv);
    expect(env.dbtEnv).toEqual({ DBT_TARGET_SCHEMA: 'raw', DBT_ENV_CUSTOM_ENV_team: 'data' });
  });
});
