import { once } from 'node:events';
import type { PgQueryable } from './pg-copy-out';

/**
 * `COPY … FROM STDIN` through node-postgres's own connection: the caller
 * writes CopyData payloads (for text COPY, whole rows ending in '\n') and ends
 * with `end()`, which resolves with the server's row count. Writes wait for
 * the socket to drain, so memory stays bounded by what the caller holds.
 */
interface PgConnection {
  query(text: string): void;
  stream: NodeJS.WritableStream & { writable: boolean };
}

export class CopyInQuery {
  private connection: PgConnection | null = null;
  private rowCount = 0;
  error: Error | null = null;
  private readyP: Promise<void>;
  private doneP: Promise<number>;
  private readyR!: { resolve(): void; reject(e: Error): void };
  private doneR!: { resolve(n: number): void; reject(e: Error): void };

  constructor(private readonly text: string) {
    this.readyP = new Promise((resolve, reject) => { this.readyR = { resolve, reject }; });
    this.doneP = new Promise((resolve, reject) => { this.doneR = { resolve, reject }; });
    // either may be awaited later than it settles
    this.readyP.catch(() => {});
    this.doneP.catch(() => {}); // observed by wait(); this only keeps an unawaited rejection from crashing the process
  }

  /** Called by pg when this query reaches the front of the client's queue. */
  submit(connection: PgConnection): void {
    this.connection = connection;
    connection.query(this.text);
  }

  handleCopyInResponse(): void { this.readyR.resolve(); }
  handleCommandComplete(msg: { text?: string }): void {
    const m = /^COPY (\d+)/.exec(msg.text ?? '');
    if (m) this.rowCount = Number(m[1]);
  }
  handleEmptyQuery(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  handleError(err: Error): void {
    this.error ??= err;
    this.readyR.reject(this.error);
    this.doneR.reject(this.error);
  }

  handleReadyForQuery(): void {
    if (this.error) this.doneR.reject(this.error);
    else this.doneR.resolve(this.rowCount);
  }

  /** Send one CopyData message; waits while the socket's buffer is full. */
  async write(payload: Buffer): Promise<void> {
    await this.readyP;
    if (this.error) throw this.error;
    if (!payload.length) return;
    const head = Buffer.allocUnsafe(5);
    head[0] = 0x64; // 'd' CopyData
    head.writeInt32BE(payload.length + 4, 1);
    const s = this.connection!.stream;
    s.write(head);
    // a connection lost while waiting fails the query (doneP) rather than leaving the wait hanging
    if (!s.write(payload)) await Promise.race([once(s as unknown as NodeJS.EventEmitter, 'drain'), this.doneP]);
    if (this.error) throw this.error;
  }

  /** CopyDone; resolves with the rows the server copied. */
  async end(): Promise<number> {
    await this.readyP;
    if (this.error) throw this.error;
    this.connection!.stream.write(Buffer.from([0x63, 0, 0, 0, 4])); // 'c' CopyDone
    return this.doneP;
  }
}

/** Start `COPY … FROM STDIN` on a client; write rows, then `end()`. */
export function copyIn(client: PgQueryable, sql: string): CopyInQuery {
  const q = new CopyInQuery(sql);
  client.query(q as never);
  return q;
}
