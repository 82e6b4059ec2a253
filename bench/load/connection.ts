// One keep-alive HTTP/1.1 connection with at most one request in flight (no pipelining: real
// clients do not pipeline, and pipelining would flatter the server). Written on a raw socket
// because node:http's client costs more CPU per request than the servers we measure, which
// would make the generator the bottleneck on a 2-core machine.
import { connect, type Socket } from 'node:net';

const CRLFCRLF = Buffer.from('\r\n\r\n');
const CHUNK_END = Buffer.from('0\r\n\r\n');

export interface Outcome {
  /** HTTP status, or 0 when the connection failed before an answer. */
  status: number;
  error?: 'connect' | 'closed' | 'timeout' | 'parse';
}

export interface ConnectionOptions {
  host: string;
  port: number;
  /** Abandon a request (and the socket) after this long. */
  timeoutMs: number;
}

export class Connection {
  private socket: Socket | undefined;
  private buf: Buffer | undefined;
  private pending: ((o: Outcome) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private connected = false;

  constructor(private readonly opts: ConnectionOptions) {}

  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** Sends one full request (head + body already serialised) and resolves with its outcome. */
  send(request: string, done: (o: Outcome) => void): void {
    if (this.pending) throw new Error('connection busy: no pipelining');
    this.pending = done;
    this.timer = setTimeout(() => this.fail('timeout'), this.opts.timeoutMs);
    const s = this.socket ?? this.open();
    s.write(request);
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): Socket {
    const s = connect({ host: this.opts.host, port: this.opts.port, noDelay: true });
    this.connected = false;
    // Events from a socket we already replaced must not touch the request on the new one.
    const lost = () => {
      if (this.socket === s) this.fail(this.connected ? 'closed' : 'connect');
    };
    s.on('connect', () => (this.connected = true));
    s.on('data', (d: Buffer) => {
      if (this.socket === s) this.onData(d);
    });
    s.on('error', lost);
    s.on('close', lost);
    this.socket = s;
    this.buf = undefined;
    return s;
  }

  private onData(d: Buffer): void {
    const buf = this.buf ? Buffer.concat([this.buf, d]) : d;
    const headEnd = buf.indexOf(CRLFCRLF);
    if (headEnd < 0) {
      this.buf = buf;
      return;
    }
    const bodyStart = headEnd + 4;
    const head = buf.toString('latin1', 0, headEnd);
    const status = Number(head.slice(9, 12));
    if (!head.startsWith('HTTP/1.') || !(status >= 100)) return this.fail('parse');
    const total = messageLength(head, buf, bodyStart);
    if (total === -1) return this.fail('parse');
    if (total === undefined || buf.length < total) {
      this.buf = buf;
      return;
    }
    this.buf = total < buf.length ? buf.subarray(total) : undefined;
    const keepAlive = !/\r\nconnection: *close/i.test(head);
    if (!keepAlive) this.close();
    this.finish({ status });
  }

  private fail(error: NonNullable<Outcome['error']>): void {
    this.close();
    this.finish({ status: 0, error });
  }

  private finish(o: Outcome): void {
    const done = this.pending;
    if (!done) return;
    clearTimeout(this.timer);
    this.pending = undefined;
    done(o);
  }
}

/** Byte length of the whole response, undefined while it is not all here, -1 if unreadable. */
function messageLength(head: string, buf: Buffer, bodyStart: number): number | undefined {
  let i = head.indexOf('Content-Length:');
  if (i < 0) i = head.indexOf('content-length:');
  if (i < 0) i = head.toLowerCase().indexOf('content-length:');
  if (i >= 0) {
    const n = parseInt(head.slice(i + 15, i + 40), 10);
    return Number.isNaN(n) ? -1 : bodyStart + n;
  }
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    // Our servers never send chunked answers; this only finds the terminating chunk so that a
    // surprising server still gets counted rather than hanging the connection.
    const end = buf.indexOf(CHUNK_END, bodyStart);
    return end < 0 ? undefined : end + CHUNK_END.length;
  }
  return bodyStart; // 204/304-style answers without a body
}
