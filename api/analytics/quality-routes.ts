// Quality reads: an agent's recent signals, its daily accuracy per check with trend, and the
// heatmap of pass rates over every (agent, check). decisions §7.
import { queryInteger, queryString } from '../../lib/http/body.ts';
import type { Route } from '../../lib/http/types.ts';
import { getAccuracy, getHeatmap } from '../../lib/analytics/quality.ts';
import { listSignals, SIGNALS_LIMIT_DEFAULT, SIGNALS_LIMIT_MAX } from '../../lib/analytics/signals.ts';
import type { ApiContext } from '../context.ts';
import { agentLabels, registryAgentId } from './agent-exists.ts';

export const ACCURACY_DAYS = { fallback: 30, max: 365 };
export const HEATMAP_DAYS = { fallback: 7, max: 90 };

export function qualityRoutes(ctx: ApiContext): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/api/v1/agents/:agent_id/signals',
      async handler(request) {
        await ctx.guard.user(request);
        const limit = queryInteger(request, 'limit', SIGNALS_LIMIT_DEFAULT, 1, SIGNALS_LIMIT_MAX);
        const agentId = await registryAgentId(ctx.db, request);
        return { status: 200, body: await listSignals(ctx.analytics, { agentId, limit }) };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/agents/:agent_id/accuracy',
      async handler(request) {
        await ctx.guard.user(request);
        const days = queryInteger(request, 'days', ACCURACY_DAYS.fallback, 1, ACCURACY_DAYS.max);
        const agentId = await registryAgentId(ctx.db, request);
        return { status: 200, body: await getAccuracy(ctx.analytics, { agentId, days, now: ctx.now() }) };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/optimise/heatmap',
      async handler(request) {
        await ctx.guard.user(request);
        const windowDays = queryInteger(request, 'window_days', HEATMAP_DAYS.fallback, 1, HEATMAP_DAYS.max);
        const severity = (queryString(request, 'severity', 32) ?? 'ALL').toUpperCase();
        const cells = await getHeatmap(ctx.analytics, { windowDays, severity, now: ctx.now() });
        const labels = await agentLabels(ctx.db, cells.map((c) => c.agent_id));
        const agents = [...new Set(cells.map((c) => c.agent_id))];
        const checks = [...new Set(cells.map((c) => c.check_id))].sort();
        return {
          status: 200,
          body: {
            window_days: windowDays,
            severity,
            agents: agents.map((id) => ({ agent_id: id, name: labels.get(id)?.name ?? null, external_id: labels.get(id)?.external_id ?? null })),
            checks,
            cells: cells.map((c) => ({ ...c, agent_name: labels.get(c.agent_id)?.name ?? null })),
          },
        };
      },
    },
  ];
}
