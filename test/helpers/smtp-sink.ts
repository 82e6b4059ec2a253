// A real SMTP server (the smtp-server package) on a random loopback port that keeps every
// message it accepts, plus a small MIME reader so tests can check what a person would read:
// the subject, the plain and HTML parts and the inline images.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface MimePart {
  headers: Record<string, string>;
  contentType: string;
  body: Buffer;
  parts: MimePart[];
}

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  raw: string;
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
  /** Leaf parts that are not the text or HTML body (inline images, files). */
  attachments: Array<{ contentType: string; cid?: string; filename?: string; content: Buffer }>;
}

export interface SmtpSink {
  url: string;
  messages: ReceivedMail[];
  /** Resolves when at least `count` messages arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** Fixed port, e.g. to bring a sink back where a stopped one was. Default: a free one. */
  port?: number;
  /** Refuse every recipient with 550, a permanent failure. */
  rejectRecipients?: boolean;
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!options.rejectRecipients) return callback();
      callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push(parseMail(raw, session.envelope.mailFrom ? session.envelope.mailFrom.address : '', session.envelope.rcptTo.map((r) => r.address)));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    messages,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${messages.length}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return messages;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function splitHead(raw: string): { head: string; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  if (at === -1) return { head: raw, body: '' };
  const sep = raw.slice(at).match(/^\r?\n\r?\n/)![0];
  return { head: raw.slice(0, at), body: raw.slice(at + sep.length) };
}

function parseHeaders(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function param(value: string, name: string): string | undefined {
  const m = value.match(new RegExp(`${name}="?([^";]+)"?`, 'i'));
  return m?.[1];
}

function decodeQuotedPrintable(text: string): Buffer {
  const soft = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i]!, 'utf8'));
  }
  return Buffer.from(bytes);
}

/** RFC 2047 encoded words in a header (=?UTF-8?Q?...?= and =?UTF-8?B?...?=). */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset, enc: string, data: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')).toString('utf8'),
    );
}

export function parsePart(raw: string): MimePart {
  const { head, body } = splitHead(raw);
  const headers = parseHeaders(head);
  const contentType = (headers['content-type'] ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
  const boundary = contentType.startsWith('multipart/') ? param(headers['content-type']!, 'boundary') : undefined;
  if (boundary) {
    const pieces = body.split(`--${boundary}`).slice(1);
    // RFC 2046: the line break before a boundary belongs to the boundary, not to the part.
    const parts = pieces.filter((p) => !p.startsWith('--')).map((p) => parsePart(p.replace(/^\r?\n/, '').replace(/\r?\n$/, '')));
    return { headers, contentType, body: Buffer.alloc(0), parts };
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const decoded =
    encoding === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64') : encoding === 'quoted-printable' ? decodeQuotedPrintable(body) : Buffer.from(body, 'utf8');
  return { headers, contentType, body: decoded, parts: [] };
}

function leaves(part: MimePart): MimePart[] {
  return part.parts.length === 0 ? [part] : part.parts.flatMap(leaves);
}

export function parseMail(raw: string, envelopeFrom: string, envelopeTo: string[]): ReceivedMail {
  const root = parsePart(raw);
  const all = leaves(root);
  const text = all.find((p) => p.contentType === 'text/plain' && !p.headers['content-disposition']?.startsWith('attachment'));
  const html = all.find((p) => p.contentType === 'text/html');
  return {
    envelopeFrom,
    envelopeTo,
    raw,
    headers: root.headers,
    subject: decodeWords(root.headers.subject ?? ''),
    text: text?.body.toString('utf8').replace(/\r\n/g, '\n') ?? '',
    html: html?.body.toString('utf8') ?? '',
    attachments: all
      .filter((p) => p !== text && p !== html)
      .map((p) => ({
        contentType: p.contentType,
        cid: p.headers['content-id']?.replace(/^<|>$/g, ''),
        filename: param(p.headers['content-disposition'] ?? '', 'filename'),
        content: p.body,
      })),
  };
}
