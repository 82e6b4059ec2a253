// Builds each request from a JSON body template whose placeholders change per request, so a
// server that deduplicates or caches by id sees distinct events, as in production.
//
// Placeholders (anywhere in the template text, including inside JSON strings):
//   {{seq}}     per-run unique sequence "w<worker>-<n>"      {{uuid}}    random v4 uuid
//   {{rand}}    random integer 0..999999999                  {{worker}}  load process index
//   {{now_iso}} ISO 8601 UTC time of building                {{now_ms}}  epoch milliseconds
import { randomUUID } from 'node:crypto';

const PLACEHOLDER = /\{\{(seq|uuid|rand|worker|now_iso|now_ms)\}\}/g;

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
  const url = new URL(spec.url);
  if (url.protocol !== 'http:') throw new Error(`only http:// is supported, got ${spec.url}`);
  const method = spec.method ?? (spec.body ? 'POST' : 'GET');
  const extra = (spec.headers ?? []).map((h) => h.trim() + '\r\n').join('');
  const head =
    `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n` +
    (spec.body ? 'Content-Type: application/json\r\n' : '') +
    extra;
  if (!spec.body) return () => head + '\r\n';

  // Alternating literal / placeholder-name parts: even indexes are literal text.
  const parts = spec.body.split(PLACEHOLDER);
  const ascii = !/[^\x00-\x7f]/.test(spec.body);
  return (n) => {
    let body = parts[0]!;
    for (let i = 1; i < parts.length; i += 2) body += value(parts[i]!, n, worker) + parts[i + 1]!;
    const len = ascii ? body.length : Buffer.byteLength(body);
    return `${head}Content-Length: ${len}\r\n\r\n${body}`;
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
    case 'worker':
      return String(worker);
    case 'now_iso':
      return new Date().toISOString();
    default:
      return String(Date.now());
  }
}

export function hostPort(urlText: string): { host: string; port: number } {
  const url = new URL(urlText);
  return { host: url.hostname, port: Number(url.port || 80) };
}
