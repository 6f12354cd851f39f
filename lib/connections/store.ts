import crypto from 'node:crypto';
import type pg from 'pg';
import { z } from 'zod';
import { AppError } from '../errors';
import { withTransaction } from '../db/with-transaction';
import { isBuiltinName, type ConnectionRecord } from './builtin';
import { recordAudit, type AuditActor } from '../audit';
import { findSecret } from '../log/secret-scan';
import { deriveKey, loadKeyMaterial, open, seal, type KeySource } from './secret-box';
import { connectionUsers } from './connection-usage';

/**
 * Connection records (table `connections`): kind, params (plain), secrets
 * (AES-GCM sealed, never returned by list/get unless asked for internally).
 * Branches are connections with is_branch and a unique branch_key.
 */
export interface ConnectionsContext {
  pool: pg.Pool;
  keys: KeySource;
  /**
   * Read-only connections that are not rows of the table: the environment's
   * (`builtinConnections(env)`: `env:striim`, `env:source`) and, in the CLI
   * only, transient ones made from `--source-url`-style flags. Listed and
   * resolved by name before the table. (Default: none)
   */
  builtins?: ConnectionRecord[];
}

export const CONNECTION_KINDS = ['oracle', 'postgres', 'clickhouse', 'striim', 'smtp', 'webhook', 'other'] as const;

export const ConnectionInputSchema = z.strictObject({
  name: z.string().min(1).max(100).regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only')
    .refine((n) => !isBuiltinName(n), 'names starting with env: are reserved for the built-in connections'),
  kind: z.enum(CONNECTION_KINDS),
  isBranch: z.boolean().default(false),
  branchKey: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only').nullish(),
  params: z.record(z.string(), z.unknown()).default({}),
  secrets: z.record(z.string(), z.string()).default({}),
}).refine((c) => !c.isBranch || !!c.branchKey, { message: 'a branch needs a branchKey', path: ['branchKey'] })
  .refine((c) => !c.isBranch || c.kind === 'oracle' || c.kind === 'postgres', { message: 'only oracle and postgres connections can be branches', path: ['kind'] });

export type ConnectionInput = z.input<typeof ConnectionInputSchema>;

export interface ConnectionView {
  id: string; name: string; kind: string; isBranch: boolean; branchKey: string | null;
  /** A read-only built-in connection from the environment (`env:…`). */
  builtIn?: boolean;
  params: Record<string, unknown>;
  /** Names of the stored secrets (values never leave the server). */
  secretKeys: string[];
  createdAt: Date; updatedAt: Date;
}

export interface BranchConfig {
  key: string; name: string; kind: 'oracle' | 'postgres';
  params: Record<string, unknown>;
  secrets: Record<string, string>;
}

const keyCache = new Map<string, Buffer>();
function keyOf(src: KeySource): Buffer {
  const id = `${src.secret ? 'env' : 'file'}:${src.dataDir}:${src.secret ? crypto.createHash('sha256').update(src.secret).digest('hex') : ''}`;
  let k = keyCache.get(id);
  if (!k) { k = deriveKey(loadKeyMaterial(src)); keyCache.set(id, k); }
  return k;
}

function view(r: Record<string, unknown>, secretKeys: string[]): ConnectionView {
  return {
    id: r.id as string, name: r.name as string, kind: r.kind as string, isBranch: r.is_branch as boolean, branchKey: (r.branch_key as string) ?? null,
    params: r.params as Record<string, unknown>, secretKeys, createdAt: r.created_at as Date, updatedAt: r.updated_at as Date,
  };
}

/** The audit log's picture of a connection: everything but secret values. */
const auditView = (v: ConnectionView) => ({ name: v.name, kind: v.kind, isBranch: v.isBranch, branchKey: v.branchKey, params: v.params, secretKeys: v.secretKeys });

/** Params are returned to every viewer: a credential there is refused, naming the field (it belongs in `secrets`). */
function refuseSecretParams(params: unknown): void {
  const s = findSecret(params, 'params');
  if (s) throw new AppError('validation', `connections: ${s.field}: refused — ${s.reason}; put it in secrets`, { field: s.field });
}


/** Stored secrets, decrypted (engines and in-module writers only). */
export function openSecrets(ctx: ConnectionsContext, sealed: unknown): Record<string, string> {
  return typeof sealed === 'string' && sealed ? open<Record<string, string>>(keyOf(ctx.keys), sealed) : {};
}

/** Secrets sealed for storage; none → null. */
export function sealSecrets(ctx: ConnectionsContext, secrets: Record<string, string>): string | null {
  return Object.keys(secrets).length ? seal(keyOf(ctx.keys), secrets) : null;
}

function secretKeysOf(ctx: ConnectionsContext, sealed: unknown): string[] {
  if (typeof sealed !== 'string' || !sealed) return [];
  try { return Object.keys(open<Record<string, string>>(keyOf(ctx.keys), sealed)).sort(); } catch { return []; }
}

/** Create a connection, or replace the one with the same name when `upsert`. */
export async function createConnection(ctx: ConnectionsContext, input: ConnectionInput, opts: { upsert?: boolean; audit?: AuditActor } = {}): Promise<ConnectionView> {
  const r = ConnectionInputSchema.safeParse(input);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new AppError('validation', `connections: ${i.path.join('.') || 'connection'}: ${i.message}`, { field: i.path.join('.') });
  }
  const c = r.data;
  refuseSecretParams(c.params);
  const sealed = Object.keys(c.secrets).length ? seal(keyOf(ctx.keys), c.secrets) : null;
  const sql = `INSERT INTO connections (id, name, kind, is_branch, branch_key, params, secrets_enc, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, now(), now())
    ${opts.upsert ? `ON CONFLICT (name) DO UPDATE SET kind = EXCLUDED.kind, is_branch = EXCLUDED.is_branch, branch_key = EXCLUDED.branch_key,
      params = EXCLUDED.params, secrets_enc = EXCLUDED.secrets_enc, updated_at = now()` : ''}
    RETURNING *, (xmax <> 0) AS replaced`;
  try {
    return await withTransaction(ctx.pool, async (client) => {
      const res = await client.query(sql, [crypto.randomUUID(), c.name, c.kind, c.isBranch, c.isBranch ? c.branchKey : c.branchKey ?? null, JSON.stringify(c.params), sealed]);
      const v = view(res.rows[0], Object.keys(c.secrets).sort());
      if (opts.audit) await recordAudit(client, { ...opts.audit, action: res.rows[0].replaced ? 'connection.replace' : 'connection.create', target: `connection:${v.name}`, after: auditView(v) });
      return v;
    });
  } catch (e) {
    const pe = e as { code?: string; constraint?: string };
    if (pe.code === '23505') {
      const field = pe.constraint?.includes('branch_key') ? 'branchKey' : 'name';
      throw new AppError('conflict', `connections: a connection with this ${field === 'name' ? 'name' : 'branch key'} already exists`, { field, cause: e });
    }
    throw e;
  }
}

const EPOCH = new Date(0);
function builtinView(c: ConnectionRecord): ConnectionView {
  return { id: c.name, name: c.name, kind: c.kind, isBranch: false, branchKey: null, builtIn: true, params: c.params, secretKeys: Object.keys(c.secrets).sort(), createdAt: EPOCH, updatedAt: EPOCH };
}

function refuseBuiltin(ctx: ConnectionsContext, name: string): void {
  if (isBuiltinName(name) || ctx.builtins?.some((b) => b.name === name)) {
    throw new AppError('conflict', `connections: '${name}' is a built-in connection (from the environment) and read-only`, { field: 'name' });
  }
}

/** Stored connections, after the built-in ones (non-branches; `branchesOnly` leaves them out). */
export async function listConnections(ctx: ConnectionsContext, f: { kind?: string; branchesOnly?: boolean } = {}): Promise<ConnectionView[]> {
  const r = await ctx.pool.query(`SELECT * FROM connections WHERE ($1::text IS NULL OR kind = $1) AND ($2::boolean IS NOT TRUE OR is_branch) ORDER BY name`, [f.kind ?? null, f.branchesOnly ?? null]);
  const builtins = f.branchesOnly ? [] : (ctx.builtins ?? []).filter((b) => !f.kind || b.kind === f.kind).map(builtinView);
  return [...builtins, ...r.rows.map((row) => view(row, secretKeysOf(ctx, row.secrets_enc)))];
}

/** One connection by name (secrets never included). */
export async function getConnection(ctx: ConnectionsContext, name: string): Promise<ConnectionView | null> {
  const b = ctx.builtins?.find((x) => x.name === name);
  if (b) return builtinView(b);
  const r = await ctx.pool.query('SELECT * FROM connections WHERE name = $1', [name]);
  return r.rows[0] ? view(r.rows[0], secretKeysOf(ctx, r.rows[0].secrets_enc)) : null;
}

/**
 * One connection by name with its secrets decrypted: for the engines only,
 * never for an API answer. Built-in (and CLI-transient) connections first.
 */
export async function resolveConnection(ctx: ConnectionsContext, name: string): Promise<ConnectionRecord | null> {
  const b = ctx.builtins?.find((x) => x.name === name);
  if (b) return b;
  if (isBuiltinName(name)) return null;
  const r = await ctx.pool.query('SELECT name, kind, params, secrets_enc FROM connections WHERE name = $1', [name]);
  const row = r.rows[0];
  if (!row) return null;
  return { name: row.name, kind: row.kind, params: row.params ?? {}, secrets: row.secrets_enc ? open<Record<string, string>>(keyOf(ctx.keys), row.secrets_enc) : {} };
}

/** Whether a connection of that name exists (built-in or stored), without decrypting anything. */
export async function connectionExists(ctx: ConnectionsContext, name: string): Promise<boolean> {
  if (ctx.builtins?.some((x) => x.name === name)) return true;
  if (isBuiltinName(name)) return false;
  return ((await ctx.pool.query('SELECT 1 FROM connections WHERE name = $1', [name])).rowCount ?? 0) > 0;
}

export async function deleteConnection(ctx: ConnectionsContext, name: string, audit?: AuditActor): Promise<boolean> {
  refuseBuiltin(ctx, name);
  return withTransaction(ctx.pool, async (client) => {
    const cur = await client.query('SELECT branch_key FROM connections WHERE name = $1 FOR UPDATE', [name]);
    if (!cur.rowCount) return false;
    // Checked in the delete's transaction; a spec saved meanwhile is the flows engine's to validate.
    const users = await connectionUsers(client, [name, cur.rows[0].branch_key]);
    if (users.length) {
      throw new AppError('conflict', `connections: '${name}' is used by ${users.map((u) => `${u.kind} '${u.name}'`).join(', ')}: change or delete ${users.length === 1 ? 'it' : 'them'} first`, { field: 'name' });
    }
    const r = await client.query('DELETE FROM connections WHERE name = $1 RETURNING *', [name]);
    if (!r.rowCount) return false;
    if (audit) await recordAudit(client, { ...audit, action: 'connection.delete', target: `connection:${name}`, before: auditView(view(r.rows[0], secretKeysOf(ctx, r.rows[0].secrets_enc))) });
    return true;
  });
}

/** Every branch with its decrypted secrets: for the engines only, never for an API answer. */
export async function getBranches(ctx: ConnectionsContext): Promise<BranchConfig[]> {
  const r = await ctx.pool.query(`SELECT * FROM connections WHERE is_branch ORDER BY branch_key`);
  return r.rows.map((row) => ({
    key: row.branch_key, name: row.name, kind: row.kind, params: row.params,
    secrets: row.secrets_enc ? open<Record<string, string>>(keyOf(ctx.keys), row.secrets_enc) : {},
  }));
}

/**
 * One connection with its decrypted secrets, by name: for the engines (e.g.
 * the mailer's SMTP password), never for an API answer.
 */
export async function getConnectionWithSecrets(ctx: ConnectionsContext, name: string): Promise<(ConnectionView & { secrets: Record<string, string> }) | null> {
  const r = await ctx.pool.query('SELECT * FROM connections WHERE name = $1', [name]);
  const row = r.rows[0];
  if (!row) return null;
  const secrets = row.secrets_enc ? open<Record<string, string>>(keyOf(ctx.keys), row.secrets_enc) : {};
  return { ...view(row, Object.keys(secrets).sort()), secrets };
}

/** The same, for lib/connections' source resolution (the name it knows it by). */
export const getConnectionSecrets = getConnectionWithSecrets;

export const ConnectionPatchSchema = z.strictObject({
  isBranch: z.boolean().optional(),
  branchKey: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only').nullish(),
  /** Shallow-merged into the stored params; a null value removes that key. */
  params: z.record(z.string(), z.unknown()).optional(),
  /** Merged into the stored secrets; a null value removes that secret. Secrets not named are kept. */
  secrets: z.record(z.string(), z.string().nullable()).optional(),
});
export type ConnectionPatch = z.input<typeof ConnectionPatchSchema>;

/**
 * Change a connection in place, keeping every stored secret the patch does not
 * name (so a form can edit a host without re-typing the password). Name and
 * kind are fixed; the merged result is validated like a new connection.
 */
export async function updateConnection(ctx: ConnectionsContext, name: string, patch: ConnectionPatch, audit?: AuditActor): Promise<ConnectionView | null> {
  refuseBuiltin(ctx, name);
  const p = ConnectionPatchSchema.safeParse(patch);
  if (!p.success) {
    const i = p.error.issues[0];
    throw new AppError('validation', `connections: ${i.path.join('.') || 'patch'}: ${i.message}`, { field: i.path.join('.') });
  }
  const client = await ctx.pool.connect();
  try {
    await client.query('BEGIN');
    const cur = await client.query('SELECT * FROM connections WHERE name = $1 FOR UPDATE', [name]);
    if (!cur.rowCount) { await client.query('ROLLBACK'); return null; }
    const row = cur.rows[0];
    const drop = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
    const params = drop({ ...row.params, ...(p.data.params ?? {}) });
    const oldSecrets = row.secrets_enc ? open<Record<string, string>>(keyOf(ctx.keys), row.secrets_enc) : {};
    const secrets = drop({ ...oldSecrets, ...(p.data.secrets ?? {}) }) as Record<string, string>;
    const merged = ConnectionInputSchema.safeParse({
      name: row.name, kind: row.kind,
      isBranch: p.data.isBranch ?? row.is_branch,
      branchKey: p.data.branchKey !== undefined ? p.data.branchKey : row.branch_key,
      params, secrets,
    });
    if (!merged.success) {
      const i = merged.error.issues[0];
      throw new AppError('validation', `connections: ${i.path.join('.') || 'connection'}: ${i.message}`, { field: i.path.join('.') });
    }
    const c = merged.data;
    refuseSecretParams(c.params);
    const sealed = Object.keys(c.secrets).length ? seal(keyOf(ctx.keys), c.secrets) : null;
    const res = await client.query(
      `UPDATE connections SET is_branch = $2, branch_key = $3, params = $4, secrets_enc = $5, updated_at = now() WHERE name = $1 RETURNING *`,
      [name, c.isBranch, c.branchKey ?? null, JSON.stringify(c.params), sealed]);
    const v = view(res.rows[0], Object.keys(c.secrets).sort());
    if (audit) {
      // Which secrets changed is recorded by name, never by value.
      const changedSecrets = Object.keys(p.data.secrets ?? {}).sort();
      await recordAudit(client, { ...audit, action: 'connection.update', target: `connection:${name}`,
        before: auditView(view(row, Object.keys(oldSecrets).sort())), after: { ...auditView(v), ...(changedSecrets.length ? { changedSecrets } : {}) } });
    }
    await client.query('COMMIT');
    return v;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {}); // the original error is what matters; a failed ROLLBACK means the connection is already gone
    const pe = e as { code?: string };
    if (pe.code === '23505') throw new AppError('conflict', 'connections: a connection with this branch key already exists', { field: 'branchKey', cause: e });
    throw e;
  } finally {
    client.release();
  }
}
