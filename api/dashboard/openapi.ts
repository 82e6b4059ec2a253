// The dashboard's routes as the OpenAPI document describes them: public, and not JSON. Listed in
// api/openapi/operations.ts with the other groups.
import { Type } from '@sinclair/typebox';
import type { Operation } from '../openapi/operation-types.ts';

const NOT_MODIFIED = { description: 'Not modified (the If-None-Match ETag matches)' };

export const DASHBOARD_OPERATIONS: Operation[] = [
  {
    id: 'root',
    method: 'GET',
    pattern: '/',
    tag: 'dashboard',
    auth: 'none',
    summary: 'Redirect to the dashboard',
    responses: { 302: { description: 'Location: /dashboard' } },
  },
  {
    id: 'dashboard',
    method: 'GET',
    pattern: '/dashboard',
    tag: 'dashboard',
    auth: 'none',
    summary: 'The dashboard page',
    description: 'Static HTML holding no data: its script logs in with /auth/login and reads the Bearer endpoints. Served with a strict content-security-policy (default-src \'self\'), cache-control: no-cache and an ETag.',
    responses: { 200: { description: 'The page', schema: Type.String(), mediaType: 'text/html' }, 304: NOT_MODIFIED },
  },
  {
    id: 'dashboardAsset',
    method: 'GET',
    pattern: '/dashboard/assets/:file',
    tag: 'dashboard',
    auth: 'none',
    summary: 'A static file of the dashboard (ES module, stylesheet or icon)',
    responses: {
      200: { description: 'The file, as text/javascript, text/css or image/svg+xml', schema: Type.String(), mediaType: 'text/javascript' },
      304: NOT_MODIFIED,
    },
    errors: [404],
  },
];
