// GET /health: each store's state. 200 when all are up, 503 (with Retry-After) when one is down,
// so a load balancer takes the process out of rotation until its stores are back.
import type { Route } from './http/types.ts';

export interface HealthCheck {
  name: string;
  check(): Promise<{ up: boolean; details?: Record<string, unknown> }>;
}

export function healthRoute(checks: HealthCheck[], roles: string[]): Route {
  return {
    method: 'GET',
    pattern: '/health',
    async handler() {
      const results = await Promise.all(
        checks.map(async (c) => {
          const result = await withTimeout(c.check(), 3_000).catch(() => ({ up: false, details: { error: 'check failed' } }));
          return [c.name, { status: result.up ? 'up' : 'down', ...result.details }] as const;
        }),
      );
      const allUp = results.every(([, r]) => r.status === 'up');
      return {
        status: allUp ? 200 : 503,
        headers: allUp ? undefined : { 'retry-after': '5' },
        body: { status: allUp ? 'ok' : 'degraded', roles, stores: Object.fromEntries(results) },
      };
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}
