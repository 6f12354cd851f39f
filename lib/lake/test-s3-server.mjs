// Test-only: s3rver in its own process (see test-s3.ts for why), on a free
// loopback port; prints {"port":N} once listening, exits on SIGTERM or when
// its parent's stdin closes.
import S3rver from 's3rver';

const [dir, bucket] = process.argv.slice(2);
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, vhostBuckets: false, configureBuckets: [{ name: bucket, configs: [] }] });
const requests = {};
/** Per key, the conditional write in progress (see below). */
const turns = new Map();
server.middleware.unshift(async (ctx, next) => {
  if (ctx.path === '/__requests') { ctx.body = JSON.stringify(requests); ctx.type = 'application/json'; return; }
  if (process.env.TEST_S3_DEBUG) process.stderr.write(`s3rver: ${ctx.method} ${ctx.url} ${ctx.headers.host}\n`);
  const kind = `${ctx.method}${ctx.headers.range ? ' range' : ''}${'uploadId' in ctx.query ? ' part' : ''}`;
  requests[kind] = (requests[kind] ?? 0) + 1;
  // s3rver ignores If-None-Match on writes; answer it as S3 does (412 when the key exists)
  const conditional = ctx.headers['if-none-match'] === '*' && ((ctx.method === 'PUT' && !('uploadId' in ctx.query)) || (ctx.method === 'POST' && 'uploadId' in ctx.query));
  if (!conditional) { await next(); return; }
  // S3's conditional create is atomic: two writers of one key never both succeed. A check then a
  // write is not, so conditional writes of one key take turns here.
  const [b, ...rest] = ctx.path.slice(1).split('/');
  const key = `${b}/${decodeURIComponent(rest.join('/'))}`;
  const before = turns.get(key) ?? Promise.resolve();
  let done;
  const mine = new Promise((r) => { done = r; });
  const tail = before.then(() => mine);
  turns.set(key, tail);
  await before;
  try {
    if (await ctx.store.existsObject(b, decodeURIComponent(rest.join('/')))) {
      ctx.status = 412;
      ctx.type = 'application/xml';
      ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>';
      return;
    }
    await next();
  } finally {
    done();
    if (turns.get(key) === tail) turns.delete(key);
  }
});
const addr = await server.run();
process.stdout.write(`${JSON.stringify({ port: addr.port })}\n`);
const stop = () => server.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
