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
