import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { RangeBlob } from './range-blob.mjs';
import type { Storage, StoredObject } from './storage';
import { AppError } from '../errors';

/**
 * Settings of an S3-compatible object store (AWS S3, MinIO, Ceph, R2). The
 * caller passes them in (from the process environment it parsed once); the
 * lake never reads `process.env`.
 */
export interface S3Settings {
  /** Region the bucket lives in. (Default: us-east-1) */
  region?: string;
  /** Access key; with neither key set, the SDK's default credential chain applies (instance role, profile). (Default: unset) */
  accessKeyId?: string;
  /** Secret key paired with `accessKeyId`. (Default: unset) */
  secretAccessKey?: string;
  /** Endpoint of an S3-compatible store, e.g. `http://minio:9000`. (Default: AWS's endpoint for the region) */
  endpoint?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which most self-hosted stores need. (Default: false) */
  forcePathStyle?: boolean;
  /** Objects at least this large are uploaded in parts. (Default: 16 MiB) */
  multipartThreshold?: number;
  /** Part size of a multipart upload (S3's minimum is 5 MiB). (Default: 8 MiB) */
  partSize?: number;
  /** Attempts per request, retrying throttling (503 SlowDown, 429), 5xx and network errors with backoff. (Default: 5) */
  maxAttempts?: number;
}

/** `s3://bucket/a/b` (or `s3a://`) → `{ bucket, key: 'a/b' }`. */
export function parseS3Uri(uri: string): { bucket: string; key: string } {
  const m = /^s3a?:\/\/([^/]+)\/?(.*)$/.exec(uri);
  if (!m || !m[1]) throw new AppError('validation', `lake: not an s3:// URI: ${uri}`);
  return { bucket: m[1], key: m[2] };
}

const isMissing = (e: unknown) => {
  const x = e as S3ServiceException & { Code?: string };
  return x?.name === 'NoSuchKey' || x?.name === 'NotFound' || x?.Code === 'NoSuchKey' || x?.$metadata?.httpStatusCode === 404;
};

/** An error whose `code` is ENOENT, as the Storage interface promises for missing objects. */
function missing(uri: string, cause: unknown): Error {
  return Object.assign(new Error(`lake: no object at ${uri}`, { cause }), { code: 'ENOENT' });
}

function s3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region || 'us-east-1',
    endpoint: settings.endpoint || undefined,
    forcePathStyle: !!settings.forcePathStyle,
    credentials: settings.accessKeyId && settings.secretAccessKey ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } : undefined,
    // the SDK's standard retry strategy: throttling, 5xx and transient network errors, with jittered backoff
    maxAttempts: settings.maxAttempts ?? 5,
    retryMode: 'standard',
    // checksums only when an operation requires them: S3-compatible stores differ in CRC32 trailer support
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Upload `data` in parts of `partSize`; a failed upload is aborted. */
async function multipartUpload(client: S3Client, partSize: number, at: { bucket: string; key: string }, data: Uint8Array, ifNoneMatch?: string): Promise<void> {
  const { bucket, key } = at;
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  try {
    const parts: { ETag: string; PartNumber: number }[] = [];
    for (let off = 0, n = 1; off < data.length; off += partSize, n++) {
      const body = data.subarray(off, Math.min(off + partSize, data.length));
      const r = await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: n, Body: body, ContentLength: body.length }));
      parts.push({ ETag: r.ETag!, PartNumber: n });
    }
    await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts }, IfNoneMatch: ifNoneMatch }));
  } catch (e) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId })).catch(() => {}); // the upload already failed; a leftover part expires with the bucket's lifecycle
    throw e;
  }
}

/**
 * Storage for `s3://bucket/prefix` URIs through the S3 API. Writes are single
 * PUTs (whole objects appear at once) or, from `multipartThreshold` up, a
 * multipart upload that is aborted on failure. `writeExclusive` sends
 * `If-None-Match: *` (S3, MinIO and R2 refuse with 412 when the key exists);
 * commit atomicity does not rest on it — the catalog's compare-and-swap in
 * Postgres decides which commit wins.
 */
export function s3Storage(settings: S3Settings = {}): Storage & { close(): void } {
  const client = s3Client(settings);
  const threshold = settings.multipartThreshold ?? 16 * 1024 * 1024;
  const partSize = Math.max(settings.partSize ?? 8 * 1024 * 1024, 5 * 1024 * 1024);

  const readRange = async (uri: string, start: number, end: number): Promise<Uint8Array> => {
    if (end <= start) return new Uint8Array(0);
    const { bucket, key } = parseS3Uri(uri);
    try {
      const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${start}-${end - 1}` }));
      return await r.Body!.transformToByteArray();
    } catch (e) {
      if (isMissing(e)) throw missing(uri, e);
      throw e;
    }
  };

  const head = async (uri: string): Promise<number | null> => {
    const { bucket, key } = parseS3Uri(uri);
    try {
      const r = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return r.ContentLength ?? 0;
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  };

  const put = async (uri: string, data: Uint8Array, ifNoneMatch?: string) => {
    const { bucket, key } = parseS3Uri(uri);
    if (data.length >= threshold) return multipartUpload(client, partSize, { bucket, key }, data, ifNoneMatch);
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: data, ContentLength: data.length, IfNoneMatch: ifNoneMatch }));
  };

  async function* listDetailed(prefix: string): AsyncGenerator<StoredObject> {
    const { bucket, key } = parseS3Uri(prefix);
    const scheme = prefix.slice(0, prefix.indexOf(':'));
    // a prefix names a folder, as on file://: `t/a` must not list `t/ab/...`
    const p = key && !key.endsWith('/') ? `${key}/` : key;
    let token: string | undefined;
    do {
      const r = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: p, ContinuationToken: token }));
      for (const o of r.Contents ?? []) {
        // an object without a time (S3 always sends one) counts as just written: never old enough to sweep
        if (o.Key) yield { uri: `${scheme}://${bucket}/${o.Key}`, size: o.Size ?? 0, modifiedAt: o.LastModified?.getTime() ?? Date.now() };
      }
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
  }

  return {
    async read(uri) {
      const { bucket, key } = parseS3Uri(uri);
      try {
        const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return await r.Body!.transformToByteArray();
      } catch (e) {
        if (isMissing(e)) throw missing(uri, e);
        throw e;
      }
    },
    async blob(uri) {
      // one HEAD up front, as file storage stats its file: a missing object fails here, not on the first slice read
      const size = await head(uri);
      if (size === null) throw missing(uri, undefined);
      return new RangeBlob((s, e) => readRange(uri, s, e), 0, size);
    },
    readRange,
    write: (uri, data) => put(uri, data),
    async writeExclusive(uri, data) {
      // The HEAD narrows the window on stores that ignore If-None-Match; the conditional write closes it where honoured.
      if ((await head(uri)) !== null) return false;
      try {
        await put(uri, data, '*');
        return true;
      } catch (e) {
        const status = (e as S3ServiceException)?.$metadata?.httpStatusCode;
        // 412 PreconditionFailed: the key exists; 409 ConditionalRequestConflict: a concurrent conditional write won
        if (status === 412 || status === 409) return false;
        throw e;
      }
    },
    async exists(uri) {
      return (await head(uri)) !== null;
    },
    async size(uri) {
      const n = await head(uri);
      if (n === null) throw missing(uri, undefined);
      return n;
    },
    async delete(uri) {
      const { bucket, key } = parseS3Uri(uri);
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async list(prefix) {
      const out: string[] = [];
      for await (const o of listDetailed(prefix)) out.push(o.uri);
      return out.sort();
    },
    listDetailed,
    close() { client.destroy(); },
  };
}
