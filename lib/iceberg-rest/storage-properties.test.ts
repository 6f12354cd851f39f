import { describe, expect, it } from 'vitest';
import { storageProperties } from './storage-properties';

const s3 = { region: 'eu-west-1', accessKeyId: 'AK', secretAccessKey: 'SK', endpoint: 'http://minio:9000', forcePathStyle: true };

describe('storageProperties', () => {
  it('a file:// warehouse needs none', () => {
    expect(storageProperties('file:///srv/wh', s3, true)).toEqual({});
  });
  it('s3://: endpoint, path style and region, secrets only when vending', () => {
    expect(storageProperties('s3://lake/p', s3, false)).toEqual({ 'client.region': 'eu-west-1', 's3.region': 'eu-west-1', 's3.path-style-access': 'true', 's3.endpoint': 'http://minio:9000/' });
    expect(storageProperties('s3://lake/p', s3, true)).toMatchObject({ 's3.access-key-id': 'AK', 's3.secret-access-key': 'SK' });
  });
  it('the endpoint is vended with one trailing slash, whether or not it was configured with one', () => {
    expect(storageProperties('s3://lake/p', { ...s3, endpoint: 'https://r2.example.com/' }, false)['s3.endpoint']).toBe('https://r2.example.com/');
    expect(storageProperties('s3://lake/p', { ...s3, endpoint: 'http://10.0.0.5:9000' }, false)['s3.endpoint']).toBe('http://10.0.0.5:9000/');
  });
  it('AWS defaults: no endpoint, virtual-host style, us-east-1; no keys to vend from the default chain', () => {
    expect(storageProperties('s3://lake', { forcePathStyle: false }, true)).toEqual({ 'client.region': 'us-east-1', 's3.region': 'us-east-1', 's3.path-style-access': 'false' });
  });
});
