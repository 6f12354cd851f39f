// s3rver ships no types; the tests use only these members.
declare module 's3rver' {
  export default class S3rver {
    constructor(opts: Record<string, unknown>);
    run(): Promise<unknown>;
    close(): Promise<void>;
  }
}
