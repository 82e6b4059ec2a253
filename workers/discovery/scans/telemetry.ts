// `telemetry` scanner: identities of spans that resolved to no registry agent (gen_ai.agent.id,
// else gen_ai.agent.name, else service.name; only keys with GenAI evidence), registered under
// that key as external_id so the spans that follow resolve to the new agent.
import { listUnregisteredSpanAgents, type UnregisteredSpanAgent } from '../../../lib/analytics/telemetry-reads.ts';
import type { Evidence } from '../../../schemas/discovery.ts';
import type { Scanner } from './tally.ts';

const MAX_KEYS = 1000;
const MAX_MODELS_SHOWN = 10;

const KIND_OF_SOURCE: Record<UnregisteredSpanAgent['key_source'], string> = {
  'gen_ai.agent.id': 'span_agent_id',
  'gen_ai.agent.name': 'span_agent_name',
  'service.name': 'service_name',
};

export const telemetryScanner: Scanner = async (ctx) => {
  const days = ctx.options.telemetryWindowDays;
  const keys = await listUnregisteredSpanAgents(ctx.analytics, { days, now: ctx.now(), limit: MAX_KEYS });
  ctx.tally.details.window_days = days;
  ctx.tally.details.span_keys = keys.length;
  for (const key of keys) {
    if (ctx.signal.aborted) return;
    const spans = Number(key.spans);
    const evidence: Evidence[] = [
      {
        scanner: 'telemetry',
        kind: KIND_OF_SOURCE[key.key_source],
        value: key.agent_key,
        count: spans,
        first_at: key.first_seen_at,
        last_at: key.last_seen_at,
        models: key.models.slice(0, MAX_MODELS_SHOWN),
      },
      ...key.service_names
        .filter((s) => s !== key.agent_key)
        .slice(0, 5)
        .map((s): Evidence => ({ scanner: 'telemetry', kind: 'service_name', value: s })),
    ];
    await ctx.tally.upsert(ctx, {
      external_id: key.agent_key,
      declared: {
        name: key.agent_name || key.agent_key,
        framework: 'UNKNOWN',
        ...(key.models.length > 0 ? { external_llm_calls: true } : {}),
      },
      seenAt: new Date(key.last_seen_at),
      finding: {
        scanner: 'telemetry',
        scanId: ctx.scanId,
        evidence,
        facts: {
          key_source: key.key_source,
          service_names: key.service_names,
          models: key.models,
          spans,
          genai_spans: Number(key.genai_spans),
          window_days: days,
        },
      },
    });
  }
};
