import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../config/env';
import { parseFlags } from '../execute/context';
import { RunRequest } from '../requests';
import { parseQueryFile } from './queryfile';
import { publicSettings, resolveSettings } from './settings';
import { validators } from './setup';
import { watermarkBanner } from './watermark';

describe('run settings', () => {
  it('reads the seed\'s environment names with DEV/PROD presets, flags winning', () => {
    // The settings arrive parsed (parseEnv at the process's start), the flags as the request schema parsed them.
    const dev = resolveSettings(parseEnv({ UNIQUE_RUN_ID: '100', STRIIM_NODE: 'striim:9080', CONCURRENT_APPS_MAX: '7' }), {}, '/data');
    expect(dev).toMatchObject({ runId: 100, concurrency: 7, monitorIntervalSeconds: 15, deployWaitSeconds: 20, sliceMaxRuntimeSeconds: 0, maxAttempts: 3, deploymentGroup: 'default', sourceEngine: 'oracle', logDir: '/data/slices/logging' });
    expect(dev.striim).toMatchObject({ baseUrl: 'http://striim:9080', user: 'admin', token: null });
    const prod = resolveSettings(parseEnv({ ENV: 'PROD', STRIIM_NODE: 'striim:9443', APP_MONITOR_INTERVAL_SECONDS: '30', STRIIM_API_TOKEN: 'tok' }), parseFlags(RunRequest, { runId: 5, concurrency: '2' }), '/data');
    expect(prod).toMatchObject({ runId: 5, concurrency: 2, monitorIntervalSeconds: 30, deployWaitSeconds: 120 });
    expect(prod.striim).toMatchObject({ baseUrl: 'https://striim:9443', token: 'tok' });
    const pg = resolveSettings(parseEnv({ SOURCE_PG_HOST: 'db', SOURCE_PG_DATABASE: 'app', SOURCE_PG_USER: 'u', SOURCE_PG_PASSWORD: 'p w', FORCE_FRESH: '1' }), { runId: 1 }, '/d');
    expect(pg.sourceEngine).toBe('postgres');
    expect(pg.sourceUrl).toBe('postgres://u:p%20w@db:5432/app');
    expect(pg.forceFresh).toBe(true);
    expect(JSON.stringify(publicSettings({ ...pg, striim: { ...pg.striim, password: 'secret' } }))).not.toMatch(/secret|p%20w/);
  });

  it('paces only Striim deploys: a native run starts the next slice as soon as a slot frees', () => {
    const vars = { UNIQUE_RUN_ID: '9', ENV: 'PROD', DEPLOY_WAIT_TIME_SECONDS: '20', SOURCE_PG_HOST: 'db', SOURCE_PG_DATABASE: 'app', SOURCE_PG_USER: 'u', SOURCE_PG_PASSWORD: 'p' };
    const env = parseEnv(vars);
    expect(resolveSettings(env, { executor: 'native' }, '/d').deployWaitSeconds).toBe(0);
    expect(resolveSettings(env, { executor: 'native', deployWait: 3 }, '/d').deployWaitSeconds).toBe(3);
    expect(resolveSettings(env, { executor: 'striim' }, '/d').deployWaitSeconds).toBe(20);
    expect(resolveSettings(parseEnv({ ...vars, DEPLOY_WAIT_TIME_SECONDS: '' }), { executor: 'striim' }, '/d').deployWaitSeconds).toBe(120);
  });
  it('rejects bad values with a one-line message naming the flag or variable, where each is parsed once', () => {
    expect(() => resolveSettings(parseEnv({}), {}, '/d')).toThrow('slices: --run-id is required (or UNIQUE_RUN_ID)');
    // Flags: by the request schema.
    expect(() => parseFlags(RunRequest, { runId: 'abc' })).toThrow(/--run-id/);
    expect(() => parseFlags(RunRequest, { runId: 1, concurrency: 0 })).toThrow(/--concurrency must be >= 1/);
    expect(() => parseFlags(RunRequest, { runId: 1, executor: 'spark' })).toThrow(/--executor/);
    // Variables: by the environment's schema, at start-up.
    expect(() => parseEnv({ CONCURRENT_APPS_MAX: 'x' })).toThrow(/CONCURRENT_APPS_MAX must be an integer, got 'x'/);
    expect(() => parseEnv({ SOURCE_PG_HOST: 'h', SOURCE_PG_PORT: 'abc' })).toThrow(/SOURCE_PG_PORT must be an integer, got 'abc'/);
  });

  it('parses queryfiles (target after the last |) and validates wizard answers', () => {
    expect(parseQueryFile("# c\nSELECT a || b FROM t s WHERE s.x = 'q'|PAY.T\n\n")).toEqual([{ query: "SELECT a || b FROM t s WHERE s.x = 'q'", target: 'PAY.T' }]);
    expect(() => parseQueryFile('SELECT 1')).toThrow(/expected SQL\|TARGET/);
    expect(() => parseQueryFile('SELECT 1|')).toThrow(/target must be a table name/);
    expect(validators.port('abc')).toMatch(/port must be a positive integer/);
    expect(validators.port('5432')).toBeNull();
    expect(validators.engine('db2')).toMatch(/oracle or postgres/);
    expect(validators.node('host')).toMatch(/host:port/);
  });

  it('prints the seed\'s watermark banner', () => {
    expect(watermarkBanner({ label: 'Oracle SCN', value: '0000000000123456789', capturedAt: new Date('2026-06-27T14:03:11.123Z'), sourceDsn: 'h:1521/S' }, 100)).toBe([
      '='.repeat(64),
      ' INITIAL LOAD START WATERMARK [Oracle SCN]: 0000000000123456789',
      ' captured 2026-06-27T14:03:11Z  (run 100)',
      " -> Set the downstream CDC reader's start point to this value.",
      '='.repeat(64),
    ].join('\n'));
  });
});
