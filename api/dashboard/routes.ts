// The dashboard: one static page plus its ES modules, stylesheet and icon, public because they
// hold no data (the page's script fetches everything with the user's Bearer token). The files
// are read once when the routes are built and answered from memory; no build step.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { AppError } from '../../lib/errors.ts';
import type { HttpReply, HttpRequest, Route } from '../../lib/http/types.ts';
import type { ApiContext } from '../context.ts';

export const DASHBOARD_PATH = '/dashboard';
export const DASHBOARD_ASSETS_PATH = '/dashboard/assets';

/**
 * Only same-origin scripts, styles and fetches; no inline script or style, no framing. The page
 * builds its SVG charts with DOM calls and sets widths and colours through CSSOM, both allowed.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface StaticFile {
  body: Buffer;
  headers: Record<string, string>;
}

function load(url: URL): StaticFile {
  const body = readFileSync(url);
  const extension = url.pathname.slice(url.pathname.lastIndexOf('.'));
  const contentType = CONTENT_TYPES[extension];
  if (!contentType) throw new Error(`dashboard: no content type for ${url.pathname}`);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  // no-cache, not max-age: asset names carry no version, so the browser revalidates each load
  // and a new release is picked up at once; the ETag makes that a 304 without a body.
  return { body, headers: { ...SECURITY_HEADERS, 'content-type': contentType, 'cache-control': 'no-cache', etag } };
}

function serve(file: StaticFile, request: HttpRequest): HttpReply {
  if (request.headers['if-none-match'] === file.headers.etag) {
    const { 'content-type': _omitted, ...headers } = file.headers;
    return { status: 304, headers };
  }
  return { status: 200, headers: file.headers, body: file.body };
}

/** Reads the page and every file of static/assets once; a missing file stops the start. */
export function loadDashboardFiles(root = new URL('./static/', import.meta.url)): { page: StaticFile; assets: Map<string, StaticFile> } {
  const assetsDir = new URL('assets/', root);
  const assets = new Map<string, StaticFile>();
  for (const name of readdirSync(assetsDir)) assets.set(name, load(new URL(name, assetsDir)));
  return { page: load(new URL('index.html', root)), assets };
}

export function dashboardRoutes(_ctx: ApiContext): Route[] {
  const { page, assets } = loadDashboardFiles();
  return [
    {
      method: 'GET',
      pattern: '/',
      handler: () => ({ status: 302, headers: { location: DASHBOARD_PATH, 'cache-control': 'no-cache' } }),
    },
    { method: 'GET', pattern: DASHBOARD_PATH, handler: (request) => serve(page, request) },
    {
      method: 'GET',
      pattern: `${DASHBOARD_ASSETS_PATH}/:file`,
      handler(request) {
        // A map look-up, never a file-system path: `..` or any other name simply is not there.
        const file = assets.get(request.params.file ?? '');
        if (!file) throw new AppError({ code: 'not_found', status: 404, detail: 'No such dashboard asset.' });
        return serve(file, request);
      },
    },
  ];
}
