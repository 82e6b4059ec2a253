// Baseline: the same work as bare-uws.ts (read body, JSON.parse, answer 202 {"ok":true}) on
// node:http, to show what the choice of uWebSockets.js buys.
// Usage: npx tsx bench/baselines/bare-node-http.ts [PORT]   (or PORT=...; 0 picks a free port)
// Prints `READY bare-node-http port=<port> pid=<pid>` once listening on 127.0.0.1.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { portFromArgs } from '../lib/args.ts';

const MAX_BODY = 1 << 20;
const OK = '{"ok":true}';
const BAD = '{"ok":false}';

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
}

function onRequest(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST') return reply(res, 404, BAD);
  const chunks: Buffer[] = [];
  let size = 0;
  let tooBig = false;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size > MAX_BODY) tooBig = true;
    else chunks.push(c);
  });
  req.on('end', () => {
    if (tooBig) return reply(res, 413, BAD);
    try {
      JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'));
    } catch {
      return reply(res, 400, BAD);
    }
    reply(res, 202, OK);
  });
}

const server = createServer(onRequest);
// The load generator keeps connections busy; Node's 5 s keep-alive default would only matter
// between phases, where a reconnect would show up as a latency spike.
server.keepAliveTimeout = 60_000;
server.listen(portFromArgs(), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`READY bare-node-http port=${port} pid=${process.pid}`);
});
const stop = () => server.close(() => process.exit(0)).closeAllConnections();
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
