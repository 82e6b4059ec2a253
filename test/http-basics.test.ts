import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from './helpers/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
});

describe('HTTP basics', () => {
  it('answers /health with each store up', async () => {
    const res = await call(service.baseUrl, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body.stores.postgres.status).toBe('up');
    expect(res.headers.get('x-request-id')).toMatch(/\S+/);
  });

  it('answers an unknown route with 404 problem+json', async () => {
    const res = await call(service.baseUrl, 'GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toMatchObject({ status: 404, code: 'route_not_found', title: 'Not Found' });
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await call(service.baseUrl, 'DELETE', '/health');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.body.code).toBe('method_not_allowed');
  });

  it('echoes a well-formed incoming request id and replaces a malformed one', async () => {
    const good = await call(service.baseUrl, 'GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(good.headers.get('x-request-id')).toBe('abc-123');
    const bad = await call(service.baseUrl, 'GET', '/health', { headers: { 'x-request-id': 'has spaces <script>' } });
    expect(bad.headers.get('x-request-id')).not.toContain(' ');
  });
});
