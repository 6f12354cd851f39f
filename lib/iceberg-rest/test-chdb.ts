/**
 * Test-only: ClickHouse through chdb in a child process. chdb's queries block
 * their thread, and the test process must keep serving the catalog's HTTP
 * while ClickHouse calls it. `setup` statements run first in one session,
 * then each of `queries`, whose JSONEachRow rows come back parsed; a failing
 * statement rejects with ClickHouse's message. The cwd is the repository, so
 * chdb's user_files (what it may read on disk) is the repository too.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

export function chdbChild(setup: string[], queries: string[]): Promise<Record<string, unknown>[][]> {
  const script = `const { Session } = require('chdb'); const s = new Session(); const [setup, queries] = JSON.parse(process.argv[1]);
    try { for (const q of setup) s.query(q); process.stdout.write(JSON.stringify(queries.map((q) => s.query(q, 'JSONEachRow')))); } finally { s.cleanup(); }`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script, JSON.stringify([setup, queries])], { cwd: path.resolve('.'), timeout: 80_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stderr}`));
      resolve((JSON.parse(stdout) as string[]).map((out) => (out.trim() ? out.trim().split('\n').map((l) => JSON.parse(l)) : [])));
    });
  });
}
