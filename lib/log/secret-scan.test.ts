import { describe, expect, it } from 'vitest';
import { credentialInText, findSecret, isSecretKey, redactSecrets, redactText } from './secret-scan';

describe('findSecret', () => {
  it('names secret-looking keys at any depth', () => {
    expect(findSecret({ mode: 'INITIAL', password: 'x' })).toMatchObject({ field: 'params.password' });
    expect(findSecret({ nested: { deeper: [{ apiKey: 'k' }] } })).toMatchObject({ field: 'params.nested.deeper[0].apiKey' });
    for (const k of ['passwd', 'pwd', 'secret', 'token', 'api_key', 'API-KEY', 'private_key', 'privateKey', 'clientSecret', 'dbPassword', 'authToken', 'accessKey', 'connectionString']) {
      expect(findSecret({ [k]: 'v' }), k).toMatchObject({ field: `params.${k}` });
    }
  });

  it('names values carrying credentials', () => {
    expect(findSecret({ sourceUrl: 'postgres://app:hunter2@db:5432/erp' })).toMatchObject({ field: 'params.sourceUrl', reason: expect.stringMatching(/URL/) });
    expect(findSecret({ striimUrl: 'http://admin:pw@127.0.0.1:9080' })).toMatchObject({ field: 'params.striimUrl' });
    expect(findSecret({ dsn: 'scott/tiger@db1:1521/ORCL' })).toMatchObject({ field: 'params.dsn', reason: expect.stringMatching(/Oracle/) });
    expect(findSecret({ list: ['ok', 'x mysql://u:p@h/db'] })).toMatchObject({ field: 'params.list[1]' });
  });

  it('lets ordinary params through', () => {
    const ok = {
      mode: 'INITIAL', tables: ['a.b'], sourceUrl: 'postgres://app@db/erp', url: 'http://127.0.0.1:9080', dsn: 'db1:1521/ORCL',
      tablesFile: 'tables.json', queryFileText: 'select 1 from t|t2\n', secretKeys: ['password'], password: '', token: null,
      maxTableWorkers: 4, flags: { dryRun: true }, path: 'exports/a.csv', email: 'ops@example.com',
    };
    expect(findSecret(ok)).toBeNull();
    expect(isSecretKey('tokenizer')).toBe(false);
    expect(isSecretKey('passes')).toBe(false);
    expect(credentialInText('see http://host/path?x=1')).toBeNull();
  });
});

describe('redaction', () => {
  it('masks keys, URL passwords, Oracle strings and key=value pairs, keeping the rest', () => {
    const stored = { sourceUrl: 'postgres://app:hunter2@db/erp', nested: { password: 'p4ss', keep: 1 }, dsn: 'scott/tiger@db1:1521/ORCL', n: 3 };
    const out = redactSecrets(stored);
    expect(JSON.stringify(out)).not.toMatch(/hunter2|p4ss|tiger/);
    expect(out).toEqual({ sourceUrl: 'postgres://app:***@db/erp', nested: { password: '***', keep: 1 }, dsn: 'scott/***@db1:1521/ORCL', n: 3 });
    expect(stored.nested.password).toBe('p4ss');
    expect(redactText('connect failed: password=s3cret host=db; token: abc')).toBe('connect failed: password=*** host=db; token: ***');
    expect(redactText('login to http://admin:adm1n@striim:9080 failed')).toBe('login to http://admin:***@striim:9080 failed');
  });
});
