/**
 * `COPY … TO STDOUT` read through node-postgres's own protocol parser.
 *
 * pg already frames every backend message; for COPY it hands each CopyData
 * message (one row) to the active query's `handleCopyData` as a Buffer view —
 * no copy. pg-copy-streams instead takes over the socket, re-frames the
 * messages, and joins them into chunks (two extra copies of every byte, and an
 * object per row) only for the decoder to split them into rows again. Here the
 * messages go straight to `onMessage`.
 *
 * Flow control: pg reads the socket as fast as it can, so the reader pauses
 * the socket whenever `onMessage` says enough is buffered, and the consumer
 * resumes it after taking what was produced — memory stays bounded by what one
 * pause lets through.
 */
interface PgConnection {
  query(text: string): void;
  stream: { pause(): void; resume(): void };
}

export class CopyOutQuery {
  private connection: PgConnection | null = null;
  private paused = false;
  /** Set once the server has finished the statement (ReadyForQuery), or it failed. */
  finished = false;
  error: Error | null = null;
  private wake: (() => void) | null = null;

  /** `onMessage` returns true when the consumer wants the socket paused. */
  constructor(private readonly text: string, private readonly onMessage: (payload: Buffer) => boolean) {}

  /** Called by pg when this query reaches the front of the client's queue. */
  submit(connection: PgConnection): void {
    this.connection = connection;
    connection.query(this.text);
  }

  handleCopyData(msg: { chunk: Buffer }): void {
    if (this.error) return;
    let enough: boolean;
    try { enough = this.onMessage(msg.chunk); } catch (e) {
      // a decode error: stop; the reader throws it and discards the connection
      this.error = e as Error;
      this.notify();
      return;
    }
    // wake the consumer only when there is something to take (not once per row)
    if (enough) {
      if (!this.paused) { this.paused = true; this.connection?.stream.pause(); }
      this.notify();
    }
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}

  handleError(err: Error): void {
    this.error ??= err;
    this.finished = true;
    this.resume();
    this.notify();
  }

  handleReadyForQuery(): void {
    this.finished = true;
    this.resume();
    this.notify();
  }

  /** Let the server's rows flow again (after the consumer took what was buffered). */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.connection?.stream.resume();
  }

  /** Resolves on the next message, completion or failure. */
  next(): Promise<void> {
    return new Promise((r) => { this.wake = r; });
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}

/**
 * The output of `COPY … TO STDOUT` (any format) as chunks of about
 * `chunkBytes`, each holding whole CopyData messages (for text and CSV: whole
 * rows). pg hands each message as a view of its read buffer, which it reuses
 * for the next socket read, so every message is copied into the chunk at once.
 * Aborting `signal` drops the connection (the caller must then discard the client).
 */
export async function* copyOut(client: PgQueryable, sql: string, o: { chunkBytes?: number; signal?: AbortSignal } = {}): AsyncGenerator<Buffer> {
  const hwm = o.chunkBytes ?? 1 << 16;
  const ready: Buffer[] = [];
  let cur = Buffer.allocUnsafe(hwm);
  let used = 0;
  const seal = () => { if (used) ready.push(cur.subarray(0, used)); cur = Buffer.allocUnsafe(hwm); used = 0; };
  const q = new CopyOutQuery(sql, (p) => {
    if (used + p.length > cur.length) {
      seal();
      if (p.length > cur.length) cur = Buffer.allocUnsafe(p.length);
    }
    p.copy(cur, used);
    used += p.length;
    if (used >= hwm) seal();
    return ready.length > 0;
  });
  const onAbort = () => {
    q.handleError((o.signal!.reason as Error) ?? new Error('aborted'));
    // the server may still be sending: drop the connection rather than drain it
    (client as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  };
  o.signal?.throwIfAborted();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    client.query(q as never);
    for (;;) {
      // an abort or a lost connection wins over chunks still buffered
      while (ready.length && !q.error) yield ready.shift()!;
      q.resume();
      if (q.error) throw q.error;
      if (q.finished) break;
      await q.next();
    }
    if (used) yield cur.subarray(0, used);
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
}

/** The one pg member copyOut / copyIn need: submitting a custom query object. */
export interface PgQueryable { query(q: never): unknown }
