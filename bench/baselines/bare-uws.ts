// Baseline: the least an HTTP ingest on uWebSockets.js can do per request (read the body,
// JSON.parse it, answer 202 {"ok":true}). Our ingest's figures are read against this ceiling.
// Usage: npx tsx bench/baselines/bare-uws.ts [PORT]   (or PORT=...; 0 picks a free port)
// Prints `READY bare-uws port=<port> pid=<pid>` once listening on 127.0.0.1.
import uWS from 'uWebSockets.js';
import { portFromArgs } from '../lib/args.ts';

const MAX_BODY = 1 << 20;
const OK = '{"ok":true}';
const BAD = '{"ok":false}';

function reply(res: uWS.HttpResponse, status: string, body: string): void {
  res.cork(() => {
    res.writeStatus(status).writeHeader('content-type', 'application/json').end(body);
  });
}

function onPost(res: uWS.HttpResponse): void {
  let aborted = false;
  let answered = false;
  let chunks: Buffer[] | undefined;
  let size = 0;
  res.onAborted(() => {
    aborted = true;
  });
  res.onData((ab, isLast) => {
    if (aborted || answered) return;
    size += ab.byteLength;
    if (size > MAX_BODY) {
      answered = true;
      return reply(res, '413 Payload Too Large', BAD);
    }
    // uWS reuses `ab` after this callback returns, so only a body in one chunk may be read in
    // place; anything split is copied first.
    if (!isLast) {
      (chunks ??= []).push(Buffer.from(ab.slice(0)));
      return;
    }
    const body = chunks ? Buffer.concat([...chunks, Buffer.from(ab)]) : Buffer.from(ab);
    try {
      JSON.parse(body.toString('utf8'));
    } catch {
      return reply(res, '400 Bad Request', BAD);
    }
    reply(res, '202 Accepted', OK);
  });
}

const app = uWS.App();
app.post('/*', onPost);
app.any('/*', (res) => reply(res, '404 Not Found', BAD));
app.listen('127.0.0.1', portFromArgs(), (socket) => {
  if (!socket) {
    console.error('bare-uws: listen failed');
    process.exit(1);
  }
  console.log(`READY bare-uws port=${uWS.us_socket_local_port(socket)} pid=${process.pid}`);
  const stop = () => {
    uWS.us_listen_socket_close(socket);
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
});
