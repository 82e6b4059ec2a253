// Builds each request from a JSON body template whose placeholders change per request, so a
// server that deduplicates or caches by id sees distinct events, as in production.
//
// Placeholders (in the body template, inside or outside JSON strings, and in the URL path;
// within one request {{seq}} has the same value everywhere, {{uuid}} and {{rand}} do not):
//   {{seq}}     per-run unique sequence "w<worker>-<n>"      {{uuid}}    random v4 uuid
//   {{rand}}    random integer 0..999999999                  {{worker}}  load process index
//   {{now_iso}} ISO 8601 UTC time of building                {{now_ms}}  epoch milliseconds
//   {{now_ns}}  epoch nanoseconds (OTLP time fields)
//   {{trace_id}} 32 hex digits, one per request             {{span_id}} 16 hex digits, unique per use
import { randomBytes, randomUUID } from 'node:crypto';

const PLACEHOLDER = /\{\{(seq|uuid|rand|worker|now_iso|now_ms|now_ns|trace_id|span_id)\}\}/g;

export interface RequestSpec {
  url: string;
  method?: string;
  /** Body template text; empty for no body. */
  body: string;
  /** Extra header lines, as `name: value`. */
  headers?: string[];
}

export type RequestFactory = (n: number) => string;

/** Compiles the template once; the factory returns the full HTTP/1.1 request for number n. */
export function compileRequest(spec: RequestSpec, worker: number): RequestFactory {
  // Not `new URL`: it would percent-encode the placeholders of a templated path.
  const m = /^http:\/\/([^/?#]+)([^#]*)$/.exec(spec.url);
  if (!m) throw new Error(`only http:// URLs are supported, got ${spec.url}`);
  const method = spec.method ?? (spec.body ? 'POST' : 'GET');
  // A Content-Type among the extra headers (e.g. application/x-ndjson) replaces the JSON default.
  const ownType = (spec.headers ?? []).some((h) => /^\s*content-type\s*:/i.test(h));
  const headers =
    `Host: ${m[1]}\r\n` +
    (spec.body && !ownType ? 'Content-Type: application/json\r\n' : '') +
    (spec.headers ?? []).map((h) => h.trim() + '\r\n').join('');
  const path = template(m[2] || '/', worker);
  if (!spec.body) return (n) => `${method} ${path(n)} HTTP/1.1\r\n${headers}\r\n`;
  const body = template(spec.body, worker);
  const ascii = !/[^\x00-\x7f]/.test(spec.body);
  return (n) => {
    const b = body(n);
    const len = ascii ? b.length : Buffer.byteLength(b);
    return `${method} ${path(n)} HTTP/1.1\r\n${headers}Content-Length: ${len}\r\n\r\n${b}`;
  };
}

function template(text: string, worker: number): (n: number) => string {
  // Alternating literal / placeholder-name parts: even indexes are literal text.
  const parts = text.split(PLACEHOLDER);
  if (parts.length === 1) return () => text;
  // Trace and span ids: a random prefix per load process + a counter, unique within a run at
  // the cost of a string concat (random bytes per span made the generator the bottleneck).
  const prefix = randomBytes(8).toString('hex');
  let spans = 0;
  return (n) => {
    let out = parts[0]!;
    let now = 0;
    for (let i = 1; i < parts.length; i += 2) {
      const name = parts[i]!;
      let v: string;
      if (name === 'trace_id') v = prefix + n.toString(16).padStart(16, '0');
      else if (name === 'span_id') v = prefix.slice(0, 8) + (spans++ & 0xffffffff).toString(16).padStart(8, '0');
      else if (name.startsWith('now')) {
        now ||= Date.now();
        v = name === 'now_ms' ? String(now) : name === 'now_ns' ? `${now}000000` : new Date(now).toISOString();
      } else v = value(name, n, worker);
      out += v + parts[i + 1]!;
    }
    return out;
  };
}

function value(name: string, n: number, worker: number): string {
  switch (name) {
    case 'seq':
      return `w${worker}-${n}`;
    case 'uuid':
      return randomUUID();
    case 'rand':
      return String(Math.floor(Math.random() * 1e9));
    default:
      return String(worker);
  }
}

export function hostPort(urlText: string): { host: string; port: number } {
  const url = new URL(urlText);
  return { host: url.hostname, port: Number(url.port || 80) };
}
