import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

/**
 * A real SMTP server for tests (npm smtp-server), on a free loopback port.
 * It keeps every accepted message; `refuse` answers the next N DATA commands
 * with a temporary 451 error, as a relay that is briefly unavailable does, or
 * with a permanent 5xx reply (a relay refusing the message for good).
 */
export interface ReceivedMail { from: string; to: string[]; raw: string; subject: string; text: string }

export interface TestSmtpServer {
  port: number;
  messages: ReceivedMail[];
  /** Refuse the next `n` messages with `code`. (Default: 451, temporary) */
  refuse(n: number, code?: number): void;
  /** Messages refused so far. */
  refused(): number;
  close(): Promise<void>;
}

/** Decode a raw message's quoted-printable soft breaks and escapes, enough for assertions on its text. */
export function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
}

export async function startTestSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  let toRefuse = 0;
  let refusedCount = 0;
  let refuseCode = 451;
  const server = new SMTPServer({
    secure: false, authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
    onAuth(auth, _session, cb) { cb(null, { user: auth.username }); },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (toRefuse > 0) {
          toRefuse--; refusedCount++;
          const text = refuseCode >= 500 ? '5.7.1 message refused (test server refusing for good)' : '4.3.0 try again later (test server refusing)';
          return cb(Object.assign(new Error(text), { responseCode: refuseCode }));
        }
        const raw = chunks.length ? Buffer.concat(chunks).toString('utf8') : '';
        const decoded = decodeQuotedPrintable(raw);
        const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1].replace(/\r?\n[ \t]/g, ' ') ?? '';
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address), raw, subject, text: decoded,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address()).port;
  return {
    port, messages,
    refuse: (n, code = 451) => { toRefuse = n; refuseCode = code; },
    refused: () => refusedCount,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
