// Telemetry reads: connection status of OTLP ingestion (decisions §8), per-agent telemetry,
// one trace, and telemetry cost beside cost-event spend. Bearer (user) routes; the OTLP write
// routes themselves live in the ingest tier and take service-account tokens only.
import { notFound } from '../../lib/errors.ts';
import { queryInteger } from '../../lib/http/body.ts';
import type { Route } from '../../lib/http/types.ts';
import { getTraceSpans } from '../../lib/analytics/spans.ts';
import { getAgentTelemetry, getTelemetryCostOverview } from '../../lib/analytics/telemetry-reads.ts';
import { readTelemetryStatus } from '../../lib/analytics/telemetry-status.ts';
import type { ApiContext } from '../context.ts';
import { registryAgentId } from '../analytics/agent-exists.ts';

export const TELEMETRY_DAYS = { fallback: 7, max: 365 };

export function telemetryRoutes(ctx: ApiContext): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/api/v1/otel/status',
      async handler(request) {
        await ctx.guard.user(request);
        const status = await readTelemetryStatus(ctx.db, ctx.analytics, { now: ctx.now(), retentionDays: ctx.config.spanRetentionDays });
        return { status: 200, body: status };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/otel/costs',
      async handler(request) {
        await ctx.guard.user(request);
        const days = queryInteger(request, 'days', 30, 1, TELEMETRY_DAYS.max);
        return { status: 200, body: await getTelemetryCostOverview(ctx.analytics, { days, now: ctx.now() }) };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/otel/traces/:trace_id',
      async handler(request) {
        await ctx.guard.user(request);
        const spans = await getTraceSpans(ctx.analytics, request.params.trace_id ?? '');
        if (spans.length === 0) throw notFound('The trace');
        return { status: 200, body: { trace_id: spans[0]!.trace_id, spans } };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/agents/:agent_id/telemetry',
      async handler(request) {
        await ctx.guard.user(request);
        const days = queryInteger(request, 'days', TELEMETRY_DAYS.fallback, 1, TELEMETRY_DAYS.max);
        const agentId = await registryAgentId(ctx.db, request);
        return { status: 200, body: await getAgentTelemetry(ctx.analytics, { agentId, days, now: ctx.now() }) };
      },
    },
  ];
}
