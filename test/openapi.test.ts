// The OpenAPI document is generated from the TypeBox schemas and describes exactly the routes
// the service registers: none missing, none invented.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startTestService, type TestService } from './helpers/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
});

it('serves an OpenAPI 3.1 document covering every route, and only those', async () => {
  const res = await call(service.baseUrl, 'GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.body.openapi).toBe('3.1.0');
  const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
  const served = service.routes.map((r) => `${r.method} ${r.pattern.replace(/:(\w+)/g, '{$1}')}`).sort();
  expect(documented).toEqual(served);
});

it('documents request bodies with the same field rules the validators apply', async () => {
  const doc = (await call(service.baseUrl, 'GET', '/api/v1/openapi.json')).body;
  const signal = doc.paths['/api/v1/jobs/{job_id}/quality'].post.requestBody.content['application/json'].schema;
  expect(signal.required).toEqual(expect.arrayContaining(['agent_id', 'job_id', 'overall_passed', 'latency_ms', 'checks']));
  expect(signal.properties.checks.maxItems).toBe(200);
  expect(signal.additionalProperties).toBe(false);
  const list = doc.paths['/api/v1/agents'].get.parameters.find((p: any) => p.name === 'limit');
  expect(list.schema).toMatchObject({ minimum: 1, maximum: 500, default: 100 });
});
