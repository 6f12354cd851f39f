import crypto from 'node:crypto';
import { resolveSecret } from '../config/secret';
import { AppError } from '../errors';

/**
 * AES-256-GCM for connection secrets at rest. The key is derived (HKDF-SHA256)
 * from the installation secret (`TRIBUTARY_SECRET`, else `<dataDir>/secret.key`,
 * see lib/config/secret.ts). Sealed text: `v1:<iv>:<tag>:<ciphertext>` (base64).
 */
export interface KeySource {
  /** TRIBUTARY_SECRET, when set. */
  secret?: string;
  /** Data folder holding `secret.key` otherwise. */
  dataDir: string;
}

const INFO = 'tributary:connections:v1';

/** The key material: the installation secret, from the one loader in lib/config. */
export function loadKeyMaterial(src: KeySource): string {
  return resolveSecret({ TRIBUTARY_SECRET: src.secret, dataDir: src.dataDir });
}

export function deriveKey(material: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', Buffer.from(material, 'utf8'), Buffer.alloc(0), Buffer.from(INFO), 32));
}

export function seal(key: Buffer, value: unknown): string {
  const iv = crypto.randomBytes(12);
  const c = crypto.createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([c.update(JSON.stringify(value), 'utf8'), c.final()]);
  return `v1:${iv.toString('base64')}:${c.getAuthTag().toString('base64')}:${ct.toString('base64')}`;
}

export function open<T = unknown>(key: Buffer, sealed: string): T {
  const [v, iv, tag, ct] = sealed.split(':');
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new AppError('fatal', 'connections: unreadable secret (unknown format)');
  try {
    const d = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    d.setAuthTag(Buffer.from(tag, 'base64'));
    return JSON.parse(Buffer.concat([d.update(Buffer.from(ct, 'base64')), d.final()]).toString('utf8')) as T;
  } catch (e) {
    throw new AppError('fatal', 'connections: cannot decrypt secrets (TRIBUTARY_SECRET or secret.key changed?)', { cause: e });
  }
}
