import readline from 'node:readline';
import { AppError } from '../errors';

/** Read all of stdin and take its first line (what `--password-stdin` means, as in `docker login`). */
export async function readPasswordFromStdin(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of input) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
}

/** Ask for a password on the terminal without echoing it. */
export async function promptPassword(question: string): Promise<string> {
  if (!process.stdin.isTTY) throw new AppError('usage', 'users: no terminal to ask for the password on: pipe it in with --password-stdin', { field: 'password' });
  const out = process.stderr;
  const rl = readline.createInterface({ input: process.stdin, output: out, terminal: true });
  // Echo nothing of what is typed (readline writes through _writeToOutput).
  const r = rl as unknown as { _writeToOutput: (s: string) => void };
  let asked = false;
  r._writeToOutput = (s: string) => { if (!asked) { out.write(s); asked = true; } };
  try {
    return await new Promise<string>((resolve) => rl.question(question, resolve));
  } finally {
    rl.close();
    out.write('\n');
  }
}
