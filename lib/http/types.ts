// The request/answer shapes every route handler sees. Handlers never touch uWebSockets.js
// objects: uWS requests are only valid synchronously, so the server copies what it needs.

export interface HttpRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** Values of `:name` segments of the matched route pattern. */
  params: Record<string, string>;
  body: Buffer;
  requestId: string;
  remoteAddress: string;
}

export interface HttpReply {
  status: number;
  headers?: Record<string, string>;
  /** Objects are sent as JSON; strings and buffers as they are. */
  body?: unknown;
}

export type Handler = (request: HttpRequest) => Promise<HttpReply> | HttpReply;

export interface RouteOptions {
  /** Accepted request media types (without parameters); `any` lets the handler decide. */
  contentTypes?: readonly string[] | 'any';
  /** Overrides the server-wide body limit (for example for OTLP exports). */
  maxBodyBytes?: number;
}

export interface Route extends RouteOptions {
  method: string;
  pattern: string;
  handler: Handler;
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): HttpReply => ({ status, body, headers });
