import type { EnvS3 } from '../config/env';

/**
 * What a REST-catalog client needs to read the warehouse's files itself, as
 * the properties Iceberg's FileIO implementations read (`s3.endpoint`,
 * `s3.path-style-access`, `client.region`; pyiceberg, iceberg-java, Trino and
 * DuckDB all honour these names). A `file://` warehouse needs none. Secrets
 * are included only when `vend` is set (a token an admin created with
 * `--vend-credentials`); other clients bring their own credentials.
 *
 * `s3.endpoint` always ends with `/` (`http://minio:9000/`, as Lakekeeper
 * vends it). The AWS SDKs and DuckDB (whose iceberg extension strips the
 * slash) take both forms as the same endpoint, but ClickHouse's DataLakeCatalog
 * (26.x, `TableMetadata::getMetadataLocation`) finds the metadata file inside
 * the table only with it: it strips the endpoint from
 * `<endpoint>/<bucket>/<table path>/` and compares what is left with the
 * `metadata-location` minus `s3://`. Without the slash `/bucket/…` never
 * matches `bucket/…`, so it reads `<table path>/<bucket>/<table path>/metadata/…`
 * and gets a 404 (ClickHouse issue #93283; fix proposed in PR #106823).
 */
export function storageProperties(warehouse: string, s3: EnvS3, vend: boolean): Record<string, string> {
  if (!/^s3a?:\/\//.test(warehouse)) return {};
  const out: Record<string, string> = {
    'client.region': s3.region || 'us-east-1',
    's3.region': s3.region || 'us-east-1',
    's3.path-style-access': String(!!s3.forcePathStyle),
  };
  if (s3.endpoint) out['s3.endpoint'] = withTrailingSlash(s3.endpoint);
  if (vend && s3.accessKeyId && s3.secretAccessKey) {
    out['s3.access-key-id'] = s3.accessKeyId;
    out['s3.secret-access-key'] = s3.secretAccessKey;
  }
  return out;
}

function withTrailingSlash(endpoint: string): string {
  return endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
}
