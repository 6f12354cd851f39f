// `tributary users create` as a real process: the password comes from stdin
// (never argv), `--password` still works but warns, and the creation is audited.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { createPrisma } from '../db/prisma';
import { verifyCredentials } from '../auth/users';

let db: TestDatabase;
let dataDir: string;
beforeAll(async () => { db = await createTestDatabase(); dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-cli-users-')); });
afterAll(async () => { await db.drop(); fs.rmSync(dataDir, { recursive: true, force: true }); });

function cli(args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, ['bin/tributary.mjs', ...args], {
      env: { ...process.env, DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: dataDir, LOG_LEVEL: 'error' }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = ''; let stderr = '';
    c.stdout.on('data', (d) => { stdout += d; });
    c.stderr.on('data', (d) => { stderr += d; });
    c.stdin.end(stdin ?? '');
    c.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('users create', () => {
  it('reads the password from stdin, warns on --password, refuses short ones, and audits', async () => {
    const a = await cli(['users', 'create', '--name', 'piped', '--password-stdin', '--role', 'operator'], 'piped-password-1\n');
    expect(a.stderr).toBe('');
    expect(a.stdout).toContain('created user piped (operator)');
    const b = await cli(['users', 'create', '--name', 'legacy', '--password', 'legacy-password']);
    expect(b.code).toBe(0);
    expect(b.stderr).toMatch(/--password is deprecated/);
    const c = await cli(['users', 'create', '--name', 'short', '--password-stdin'], 'short\n');
    expect(c.code).not.toBe(0);
    expect(c.stderr).toMatch(/at least 8 characters/);
    // No terminal and no stdin flag: it says how, instead of hanging.
    const d = await cli(['users', 'create', '--name', 'nobody']);
    expect(d.code).not.toBe(0);
    expect(d.stderr).toMatch(/--password-stdin/);

    const prisma = createPrisma(db.url, { max: 1 });
    try {
      expect(await verifyCredentials(prisma, 'piped', 'piped-password-1')).not.toBeNull();
      expect(await verifyCredentials(prisma, 'legacy', 'legacy-password')).not.toBeNull();
      expect(await prisma.user.findUnique({ where: { name: 'short' } })).toBeNull();
    } finally { await prisma.$disconnect(); }
    const audit = await db.pool.query(`select actor, action, target from audit_events order by id`);
    expect(audit.rows).toEqual([
      { actor: 'cli', action: 'user.create', target: 'user:piped' },
      { actor: 'cli', action: 'user.create', target: 'user:legacy' },
    ]);
  });
});
