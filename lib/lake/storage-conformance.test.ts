import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileStorage, storageFor, type Storage } from './storage';
import { startS3, type TestS3 } from './test-s3';

// The same operations on file:// and on s3:// (s3rver): the lake sees one contract.
let s3: TestS3;
let tmp: string;
beforeAll(async () => {
  s3 = await startS3();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-storage-'));
});
afterAll(async () => {
  await s3?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const kinds: [string, () => { storage: Storage; root: string }][] = [
  ['file://', () => ({ storage: fileStorage(), root: `file://${tmp}/${crypto.randomBytes(4).toString('hex')}` })],
  // small parts so a 12 MiB object goes through a real multipart upload
  ['s3://', () => ({ storage: storageFor('s3://lake', { ...s3.settings, multipartThreshold: 6 * 1024 * 1024, partSize: 5 * 1024 * 1024 }), root: s3.warehouse() })],
];

describe.each(kinds)('storage %s', (_name, make) => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const text = (b: Uint8Array) => new TextDecoder().decode(b);

  it('writes, reads, ranges, sizes and replaces', async () => {
    const { storage, root } = make();
    const u = `${root}/t/data/a.bin`;
    expect(await storage.exists(u)).toBe(false);
    await storage.write(u, bytes('hello lake'));
    expect(await storage.exists(u)).toBe(true);
    expect(text(await storage.read(u))).toBe('hello lake');
    expect(await storage.size(u)).toBe(10);
    expect(text(await storage.readRange(u, 6, 10))).toBe('lake');
    await storage.write(u, bytes('replaced'));
    expect(text(await storage.read(u))).toBe('replaced');
  });

  it('a missing object throws ENOENT on read, blob and size', async () => {
    const { storage, root } = make();
    const u = `${root}/nope.bin`;
    await expect(storage.read(u)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(storage.blob(u)).rejects.toThrow();
    await expect(storage.size(u)).rejects.toThrow();
  });

  it('a blob reads lazily: slices, negative offsets, whole', async () => {
    const { storage, root } = make();
    const u = `${root}/b.bin`;
    await storage.write(u, bytes('0123456789'));
    const b = await storage.blob(u);
    expect(b).toBeInstanceOf(Blob);
    expect(b.size).toBe(10);
    expect(text(new Uint8Array(await b.slice(2, 5).arrayBuffer()))).toBe('234');
    expect(text(new Uint8Array(await b.slice(-3).arrayBuffer()))).toBe('789');
    expect(text(new Uint8Array(await b.slice(1, 8).slice(2, 4).arrayBuffer()))).toBe('34');
    expect(await b.text()).toBe('0123456789');
  });

  it('a large blob (read by ranges, not whole) gives back the object byte for byte', async () => {
    const { storage, root } = make();
    const u = `${root}/big.bin`;
    const data = crypto.randomBytes(3 * 1024 * 1024 + 5);
    await storage.write(u, data);
    const b = await storage.blob(u);
    expect(b.size).toBe(data.length);
    const at = 1024 * 1024 - 3;
    expect(Buffer.from(await b.slice(at, at + 2 * 1024 * 1024).arrayBuffer()).equals(data.subarray(at, at + 2 * 1024 * 1024))).toBe(true);
    expect(Buffer.from(await b.slice(-7).slice(1, 4).arrayBuffer()).equals(data.subarray(data.length - 6, data.length - 3))).toBe(true);
    expect(Buffer.from(await b.arrayBuffer()).equals(data)).toBe(true);
    expect((await b.slice(5, 5).arrayBuffer()).byteLength).toBe(0);
  });

  it('writeExclusive creates once and refuses an existing object', async () => {
    const { storage, root } = make();
    const u = `${root}/t/metadata/v1.metadata.json`;
    expect(await storage.writeExclusive(u, bytes('first'))).toBe(true);
    expect(await storage.writeExclusive(u, bytes('second'))).toBe(false);
    expect(text(await storage.read(u))).toBe('first');
  });

  it('lists recursively under a folder prefix only, and deletes', async () => {
    const { storage, root } = make();
    for (const k of ['t/a.txt', 't/sub/b.txt', 'tt/c.txt']) await storage.write(`${root}/${k}`, bytes(k));
    expect(await storage.list(`${root}/t`)).toEqual([`${root}/t/a.txt`, `${root}/t/sub/b.txt`]);
    await storage.delete(`${root}/t/a.txt`);
    await storage.delete(`${root}/t/missing.txt`);
    expect(await storage.list(`${root}/t`)).toEqual([`${root}/t/sub/b.txt`]);
    expect(await storage.list(`${root}/none`)).toEqual([]);
  });

  it('listDetailed streams every object under a folder prefix with its size and modification time', async () => {
    const { storage, root } = make();
    const before = Date.now() - 2000; // S3's LastModified has whole seconds
    for (const k of ['t/a.txt', 't/sub/deeper/b.txt', 'tt/c.txt']) await storage.write(`${root}/${k}`, bytes(k));
    const got: { uri: string; size: number; modifiedAt: number }[] = [];
    for await (const o of storage.listDetailed(`${root}/t`)) got.push(o);
    got.sort((a, b) => a.uri.localeCompare(b.uri));
    expect(got.map((o) => [o.uri, o.size])).toEqual([[`${root}/t/a.txt`, 7], [`${root}/t/sub/deeper/b.txt`, 18]]);
    for (const o of got) expect(o.modifiedAt).toBeGreaterThan(before);
    if (root.startsWith('file://')) {
      const p = new URL(`${root}/t/a.txt`).pathname;
      const old = new Date(Date.UTC(2020, 0, 1));
      fs.utimesSync(p, old, old);
      const again: number[] = [];
      for await (const o of storage.listDetailed(`${root}/t`)) if (o.uri.endsWith('a.txt')) again.push(o.modifiedAt);
      expect(again).toEqual([old.getTime()]);
    }
    const none: unknown[] = [];
    for await (const o of storage.listDetailed(`${root}/none`)) none.push(o);
    expect(none).toEqual([]);
  });

  it('writes a large object whole (multipart on s3://) and reads ranges across parts', async () => {
    const { storage, root } = make();
    const u = `${root}/big.bin`;
    const data = crypto.randomBytes(12 * 1024 * 1024);
    const before = (await s3.requests())['PUT part'] ?? 0;
    await storage.write(u, new Uint8Array(data));
    expect(await storage.size(u)).toBe(data.length);
    const at = 5 * 1024 * 1024 - 10;
    expect(Buffer.from(await storage.readRange(u, at, at + 20)).equals(data.subarray(at, at + 20))).toBe(true);
    expect(Buffer.from(await storage.read(u)).equals(data)).toBe(true);
    if (root.startsWith('s3://')) expect(((await s3.requests())['PUT part'] ?? 0) - before).toBe(3);
  });
});
