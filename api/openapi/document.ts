// Builds the OpenAPI 3.1 document from the operation list and the TypeBox schemas (which are
// JSON Schema already, and OpenAPI 3.1 speaks JSON Schema 2020-12). Built once at start.
import type { TSchema } from '@sinclair/typebox';
import type { Route } from '../../lib/http/types.ts';
import { OPERATIONS, type Operation } from './operations.ts';

const PROBLEM = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable machine-readable error code (snake_case).' },
    errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
    request_id: { type: 'string' },
  },
};

/** TypeBox keeps its kind in symbol keys that JSON drops; $id would clash with components. */
function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === '$id' ? undefined : value)));
}

function toOpenApiPath(pattern: string): string {
  return pattern.replace(/:(\w+)/g, '{$1}');
}

function operationObject(op: Operation) {
  const parameters = [
    ...[...op.pattern.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } })),
    ...(op.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: q.schema })),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(op.responses)) {
    const mediaType = answer.mediaType ?? 'application/json';
    responses[status] = { description: answer.description, ...(answer.schema ? { content: { [mediaType]: { schema: plain(answer.schema) } } } : {}) };
  }
  for (const status of op.errors ?? []) {
    responses[String(status)] ??= { description: 'Problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
  }
  const security = op.auth === 'bearer' ? [{ bearer: [] }] : op.auth === 'service_account' ? [{ serviceAccount: [] }] : [];
  return {
    operationId: op.id,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security,
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? { requestBody: { required: true, content: Object.fromEntries((op.bodyMediaTypes ?? ['application/json']).map((t) => [t, { schema: plain(op.body!) }])) } }
      : {}),
    responses,
  };
}

export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const path = toOpenApiPath(op.pattern);
    paths[path] ??= {};
    paths[path][op.method.toLowerCase()] = operationObject(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Operations Registry',
      version,
      description: 'Registry of AI agents joined to their quality signals, LLM cost and OpenTelemetry traces. Errors are application/problem+json (RFC 9457) with a stable `code`.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /auth/login (60 minutes).' },
        serviceAccount: { type: 'http', scheme: 'bearer', description: 'Service-account token (aor_sa_…), telemetry endpoints only.' },
      },
      schemas: { Problem: PROBLEM },
    },
    paths,
  };
}

export function openApiRoute(version: string): Route {
  const body = JSON.stringify(buildOpenApiDocument(version));
  return {
    method: 'GET',
    pattern: '/api/v1/openapi.json',
    handler: () => ({ status: 200, headers: { 'content-type': 'application/json' }, body }),
  };
}
