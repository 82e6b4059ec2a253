// The one HTTP server of a process, on uWebSockets.js. Every tier registers its routes on a
// shared Router; this file owns what every answer needs: body limits, the content-type check,
// a request id, problem+json errors, the access log and a graceful stop.
import { STATUS_CODES } from 'node:http';
import { randomBytes } from 'node:crypto';
import uWS from 'uWebSockets.js';
import { AppError, asAppError, toProblem } from '../errors.ts';
import type { Logger } from '../log.ts';
import { AccessLog } from './access-log.ts';
import type { Router } from './router.ts';
import type { HttpReply, HttpRequest, Route } from './types.ts';

export type AccessLogMode = 'all' | 'errors' | 'off';

export interface HttpServerOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  accessLog: AccessLogMode;
  logger: Logger;
  router: Router;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const STATUS_LINES = new Map<number, string>();
const statusLine = (status: number): string => {
  let line = STATUS_LINES.get(status);
  if (!line) STATUS_LINES.set(status, (line = `${status} ${STATUS_CODES[status] ?? ''}`));
  return line;
};
const REQUEST_ID_PATTERN = /^[\w.-]{1,64}$/;

interface InFlight {
  aborted: boolean;
}

export class HttpServer {
  private readonly app = uWS.App();
  private listenSocket: uWS.us_listen_socket | undefined;
  private readonly accessLog: AccessLog;
  private inFlight = 0;
  private draining = false;
  private readonly idPrefix = randomBytes(4).toString('hex');
  private idCounter = 0;

  constructor(private readonly options: HttpServerOptions) {
    this.accessLog = new AccessLog(options.accessLog);
    this.app.any('/*', (res, req) => this.onRequest(res, req));
  }

  /** Resolves with the port it listens on (useful with port 0). */
  start(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(this.options.host, this.options.port, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${this.options.host}:${this.options.port}`));
        this.listenSocket = socket;
        resolve(uWS.us_socket_local_port(socket));
      });
    });
  }

  /** Stops accepting, lets requests in flight finish (up to timeoutMs), then closes. */
  async stop(timeoutMs: number): Promise<void> {
    this.draining = true;
    if (this.listenSocket) uWS.us_listen_socket_close(this.listenSocket);
    this.listenSocket = undefined;
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    this.accessLog.flush();
    (this.app as unknown as { close?: () => void }).close?.();
  }

  private onRequest(res: uWS.HttpResponse, req: uWS.HttpRequest): void {
    const started = performance.now();
    const method = req.getMethod().toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((key, value) => {
      headers[key] = value;
    });
    const incomingId = headers['x-request-id'];
    const requestId = incomingId && REQUEST_ID_PATTERN.test(incomingId) ? incomingId : `${this.idPrefix}-${(this.idCounter++).toString(36)}`;
    const state: InFlight = { aborted: false };
    res.onAborted(() => {
      state.aborted = true;
    });
    const request: HttpRequest = {
      method,
      path,
      query: new URLSearchParams(rawQuery),
      headers,
      params: {},
      body: EMPTY,
      requestId,
      remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString(),
    };
    this.inFlight++;
    const finish = (reply: HttpReply, closeConnection = false) => {
      this.inFlight--;
      this.send(res, state, request, reply, started, closeConnection);
    };
    if (this.draining) {
      return finish(this.errorReply(new AppError({ code: 'shutting_down', status: 503, detail: 'The server is shutting down.' }), request), true);
    }
    const match = this.options.router.match(method, path);
    if (match.kind === 'not_found') {
      return finish(this.errorReply(new AppError({ code: 'route_not_found', status: 404, detail: `No route for ${method} ${path}.` }), request));
    }
    if (match.kind === 'method_not_allowed') {
      const reply = this.errorReply(new AppError({ code: 'method_not_allowed', status: 405, detail: `${method} is not allowed on ${path}.` }), request);
      reply.headers = { ...reply.headers, allow: match.allow.join(', ') };
      return finish(reply);
    }
    request.params = match.params;
    const precheck = this.precheck(match.route, request);
    if (precheck) return finish(this.errorReply(precheck, request), precheck.status === 413);
    const run = () => this.dispatch(match.route, request).then(finish);
    if (!BODY_METHODS.has(method) || headers['content-length'] === '0') {
      run();
      return;
    }
    this.readBody(res, state, match.route, request, run, (error) => finish(this.errorReply(error, request), true));
  }

  /** Checks that need only the headers: declared size and media type. */
  private precheck(route: Route, request: HttpRequest): AppError | undefined {
    if (!BODY_METHODS.has(request.method)) return undefined;
    const limit = route.maxBodyBytes ?? this.options.maxBodyBytes;
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > limit) return tooLarge(limit);
    if (route.contentTypes === 'any') return undefined;
    const accepted = route.contentTypes ?? ['application/json'];
    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!accepted.includes(mediaType)) {
      return new AppError({
        code: 'unsupported_media_type',
        status: 415,
        detail: `Content-Type must be ${accepted.join(' or ')}.`,
      });
    }
    return undefined;
  }

  private readBody(res: uWS.HttpResponse, state: InFlight, route: Route, request: HttpRequest, done: () => void, fail: (e: AppError) => void): void {
    const limit = route.maxBodyBytes ?? this.options.maxBodyBytes;
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed || state.aborted) return;
      size += chunk.byteLength;
      if (size > limit) {
        failed = true;
        return fail(tooLarge(limit));
      }
      // uWS reuses the chunk's memory after this callback returns: copy it.
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) {
        request.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
        done();
      }
    });
  }

  private async dispatch(route: Route, request: HttpRequest): Promise<HttpReply> {
    try {
      return await route.handler(request);
    } catch (error) {
      return this.errorReply(error, request);
    }
  }

  private errorReply(error: unknown, request: HttpRequest): HttpReply {
    const appError = asAppError(error);
    if (appError.status >= 500 && appError.code === 'internal_error') {
      this.options.logger.error('request failed', { request_id: request.requestId, path: request.path, error: appError.cause ?? appError });
    }
    const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
    if (appError.retryAfterSeconds !== undefined) headers['retry-after'] = String(appError.retryAfterSeconds);
    return { status: appError.status, headers, body: toProblem(appError, request.requestId) };
  }

  private send(res: uWS.HttpResponse, state: InFlight, request: HttpRequest, reply: HttpReply, started: number, closeConnection: boolean): void {
    this.accessLog.record({
      method: request.method,
      path: request.path,
      status: state.aborted ? 499 : reply.status,
      ms: performance.now() - started,
      requestId: request.requestId,
      remote: request.remoteAddress,
    });
    if (state.aborted) return;
    const { body, contentType } = encodeBody(reply.body);
    res.cork(() => {
      res.writeStatus(statusLine(reply.status));
      res.writeHeader('x-request-id', request.requestId);
      let hasContentType = false;
      if (reply.headers) {
        for (const key in reply.headers) {
          if (key === 'content-type') hasContentType = true;
          res.writeHeader(key, reply.headers[key]!);
        }
      }
      if (!hasContentType && contentType) res.writeHeader('content-type', contentType);
      res.end(body, closeConnection);
    });
  }
}

const EMPTY = Buffer.alloc(0);

function tooLarge(limit: number): AppError {
  return new AppError({ code: 'payload_too_large', status: 413, detail: `The body exceeds ${limit} bytes.` });
}

function encodeBody(body: unknown): { body: string | Buffer; contentType?: string } {
  if (body === undefined || body === null) return { body: '' };
  if (typeof body === 'string') return { body, contentType: 'text/plain; charset=utf-8' };
  if (Buffer.isBuffer(body)) return { body };
  if (body instanceof Uint8Array) return { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
  return { body: JSON.stringify(body), contentType: 'application/json' };
}
