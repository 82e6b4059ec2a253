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
}

export class Connection {
  private socket: Socket | undefined;
  private buf: Buffer | undefined;
  private pending: ((o: Outcome) => void) | undefined;
  private connected = false;
  /** performance.now() when the pending request was sent. */
  private sentAt = 0;

  constructor(private readonly opts: ConnectionOptions) {}

  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** Sends one full request (head + body already serialised) and resolves with its outcome. */
  send(request: string, done: (o: Outcome) => void): void {
    if (this.pending) throw new Error('connection busy: no pipelining');
    this.pending = done;
    this.sentAt = performance.now();
    const s = this.socket ?? this.open();
    s.write(request);
  }

  /** Fails the pending request if it was sent before `cutoff`. One sweep timer per load
   * process calls this: a timer per request cost more CPU than the parsing does. */
  expireBefore(cutoff: number): void {
    if (this.pending && this.sentAt < cutoff) this.fail('timeout');
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
    // Read the status digits and headers from the bytes: decoding the head to a string for
    // every answer was a measurable share of the generator's CPU.
    const status = (buf[9]! - 48) * 100 + (buf[10]! - 48) * 10 + (buf[11]! - 48);
    if (buf[0] !== 72 /* H */ || buf[5] !== 49 /* 1 */ || !(status >= 100 && status < 600)) return this.fail('parse');
    const total = messageLength(buf, headEnd, bodyStart);
    if (total === -1) return this.fail('parse');
    if (total === undefined || buf.length < total) {
      this.buf = buf;
      return;
    }
    this.buf = total < buf.length ? buf.subarray(total) : undefined;
    if (headerAt(buf, headEnd, 'connection: close') >= 0) this.close();
    this.finish({ status });
  }

  private fail(error: NonNullable<Outcome['error']>): void {
    this.close();
    this.finish({ status: 0, error });
  }

  private finish(o: Outcome): void {
    const done = this.pending;
    if (!done) return;
    this.pending = undefined;
    done(o);
  }
}

/** Byte length of the whole response, undefined while it is not all here, -1 if unreadable. */
function messageLength(buf: Buffer, headEnd: number, bodyStart: number): number | undefined {
  const i = headerAt(buf, headEnd, 'content-length:');
  if (i >= 0) {
    let n = 0;
    let j = i + 15;
    while (buf[j] === 32) j++;
    const first = j;
    for (let c = buf[j]!; c >= 48 && c <= 57; c = buf[++j]!) n = n * 10 + (c - 48);
    return j === first ? -1 : bodyStart + n;
  }
  if (headerAt(buf, headEnd, 'transfer-encoding: chunked') >= 0) {
    // Our servers never send chunked answers; this only finds the terminating chunk so that a
    // surprising server still gets counted rather than hanging the connection.
    const end = buf.indexOf(CHUNK_END, bodyStart);
    return end < 0 ? undefined : end + CHUNK_END.length;
  }
  return bodyStart; // 204/304-style answers without a body
}

/** Offset of a header line (`lower` in lower case) in the head, in the two spellings servers
 * use (Title-Case and lower case), or -1. */
function headerAt(buf: Buffer, headEnd: number, lower: string): number {
  let needles = NEEDLES.get(lower);
  if (!needles) {
    const title = lower.replace(/(^|-)([a-z])/g, (_m, sep: string, c: string) => sep + c.toUpperCase());
    needles = [Buffer.from(lower, 'latin1'), Buffer.from(title, 'latin1')];
    NEEDLES.set(lower, needles);
  }
  let i = buf.indexOf(needles[0]);
  if (i < 0 || i >= headEnd) i = buf.indexOf(needles[1]);
  return i >= 0 && i < headEnd ? i : -1;
}

// Searching with Buffers skips a string encode per answer.
const NEEDLES = new Map<string, [Buffer, Buffer]>();
