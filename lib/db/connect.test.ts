// A start's checks (migrations, set-up, the application role) run on an owner
// session of a server found running; that server may go away under them — a
// keeper stopping it because `worker` takes the folder over, a supervised
// restart. A session lost there is found again, not a failed command
// (issue #23: db-keeper's takeover test failed once at a CLI command, exit 1).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { connectDatabase } from './connect';
import type { EmbeddedHandle } from './embedded-postgres';

let dataDir: string;
let embedded: EmbeddedHandle | null = null;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-connect-'));
  ({ embedded } = await connectDatabase(parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv)));
}, 180_000);

afterAll(async () => {
  await embedded?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Terminate the owner's other sessions (the start's check session) and wait until they are gone. */
async function dropOtherSessions(ownerUrl: string): Promise<number> {
  const c = new pg.Client({ connectionString: ownerUrl });
  await c.connect();
  try {
    const others = `select pid from pg_stat_activity where usename = current_user and backend_type = 'client backend' and pid <> pg_backend_pid()`;
    const killed = (await c.query(`select count(*)::int as n from (select pg_terminate_backend(pid) from (${others}) o) t`)).rows[0].n as number;
    for (const end = Date.now() + 30_000; (await c.query(others)).rowCount! > 0;) {
      if (Date.now() > end) throw new Error('the terminated sessions did not go');
      await new Promise((r) => setTimeout(r, 50));
    }
    return killed;
  } finally { await c.end(); }
}

describe('connectDatabase on a server found running', () => {
  it('a check session lost under the start (server restarting, taken over) is opened again, not fatal', async () => {
    const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
    let setups = 0;
    let dropped = 0;
    const c = await connectDatabase(env, {
      // Runs between the migration check and the role check, on the server the start found.
      setup: async (ownerUrl) => { if (++setups === 1) dropped = await dropOtherSessions(ownerUrl); },
    });
    expect(dropped).toBeGreaterThan(0); // the check session was there, and was lost
    expect(setups).toBe(2); // the checks ran again on a new session
    const app = new pg.Client({ connectionString: c.url });
    await app.connect();
    try {
      expect((await app.query('select current_user as u')).rows[0].u).toBe('tributary_app');
    } finally { await app.end(); }
  }, 180_000);
});
