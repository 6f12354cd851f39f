// sendMail's retry rule against a real SMTP server (npm smtp-server, in process):
// a temporary 4xx reply or no connection is tried again, a permanent 5xx reply is not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { isTransientSmtp, sendMail } from './send';
import { startTestSmtpServer, type TestSmtpServer } from './test-smtp-server';
import { closedPort } from '../testing/closed-port';

let smtp: TestSmtpServer;
beforeAll(async () => { smtp = await startTestSmtpServer(); });
afterAll(async () => { await smtp?.close(); });

const settings = () => ({ host: '127.0.0.1', port: smtp.port, tls: 'none' as const, from: 'tributary@mail.test' });
const msg = (subject: string) => ({ to: ['ops@mail.test'], subject, text: 'body' });

describe('sendMail retries', () => {
  it('a temporary 451 is tried again, and the mail arrives on the third try', async () => {
    const before = smtp.refused();
    smtp.refuse(2);
    const retried: [number, string][] = [];
    const r = await sendMail(settings(), msg('after two 451s'), { attempts: 5, backoffMs: 1, onRetry: (n, e) => { retried.push([n, e.message]); } });
    expect(r.attempts).toBe(3);
    expect(smtp.refused() - before).toBe(2);
    expect(retried.map(([n]) => n)).toEqual([1, 2]);
    expect(retried[0][1]).toMatch(/451/);
    expect(smtp.messages.at(-1)?.subject).toBe('after two 451s');
  });

  it('a permanent 550 fails at once: one try, no retry, code fatal', async () => {
    const before = smtp.refused();
    const received = smtp.messages.length;
    smtp.refuse(3, 550);
    let retries = 0;
    const err = await sendMail(settings(), msg('refused for good'), { attempts: 5, backoffMs: 1, onRetry: () => { retries++; } }).catch((e) => e);
    smtp.refuse(0);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'fatal', message: expect.stringMatching(/^mail: refused by the server \(not retried\): .*550/) });
    expect(retries).toBe(0);
    expect(smtp.refused() - before).toBe(1);
    expect(smtp.messages.length).toBe(received);
  });

  it('a server that cannot be reached is tried every time, then fails as unavailable', async () => {
    let retries = 0;
    const err = await sendMail({ ...settings(), port: await closedPort() }, msg('nowhere'), { attempts: 3, backoffMs: 1, onRetry: () => { retries++; } }).catch((e) => e);
    expect(err).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/^mail: not sent after 3 tries: /) });
    expect(retries).toBe(2);
  });

  it('classifies by reply code first, then by network code', () => {
    const e = (o: object) => Object.assign(new Error('x'), o);
    expect(isTransientSmtp(e({ responseCode: 421 }))).toBe(true);
    expect(isTransientSmtp(e({ responseCode: 452 }))).toBe(true);
    expect(isTransientSmtp(e({ responseCode: 535, code: 'EAUTH' }))).toBe(false);
    expect(isTransientSmtp(e({ responseCode: 550, code: 'EENVELOPE' }))).toBe(false);
    expect(isTransientSmtp(e({ code: 'ECONNECTION' }))).toBe(true);
    expect(isTransientSmtp(e({ code: 'EMESSAGE' }))).toBe(false);
  });
});
