// Decoded spans → span events: the registry agent each span belongs to, resolved from memory,
// and the price of its token usage, fixed now so a later price change never rewrites history.
//
// Agent (decisions §2, issue 5): gen_ai.agent.id, else gen_ai.agent.name, else service.name,
// each tried as a registry uuid then an external_id; the first that resolves wins. When none
// does, agent_key keeps the first one present, for discovery.
//
// Cache tokens: the GenAI conventions count cache reads inside input_tokens, which is what
// the pricer expects (cached ⊆ input). Some instrumentations (Anthropic's API shape) report them
// apart; when cache reads exceed input, they are added to input (with cache creation) instead.
import type { SpanRecord } from '../../lib/otlp/traces.ts';
import type { Pricer } from '../../lib/pricing/pricing.ts';
import type { SpanEvent } from '../../schemas/telemetry.ts';
import type { DirectoryAgent } from '../agent-directory.ts';

export interface AgentResolver {
  resolve(textualId: string): DirectoryAgent | undefined;
}

export interface SpanPricing {
  cost_usd: number;
  priced: boolean;
}

const NOTHING_TO_PRICE: SpanPricing = { cost_usd: 0, priced: true };
const UNPRICED: SpanPricing = { cost_usd: 0, priced: false };

export function priceSpan(span: SpanRecord, pricer: Pricer): SpanPricing {
  const tokens = span.input_tokens + span.output_tokens + span.cache_read_tokens;
  if (tokens === 0) return NOTHING_TO_PRICE;
  if (!span.model) return UNPRICED;
  let input = span.input_tokens;
  let cached = span.cache_read_tokens;
  if (cached > input) {
    input = input + cached + span.cache_creation_tokens;
  }
  // Absurd counts (beyond 2^53 once summed) are not a price anyone can use: leave them unpriced.
  if (!Number.isSafeInteger(input)) return UNPRICED;
  const result = pricer.cost(span.model, { input_tokens: input, output_tokens: span.output_tokens, cached_input_tokens: cached }, span.provider);
  return result.priced ? { cost_usd: result.cost_usd, priced: true } : UNPRICED;
}

/**
 * Builds the events of one export, in place: the records are the decoder's fresh objects and
 * become the events (no copy per span on the hot path). Look-ups are memoised per request: the
 * spans of one export mostly share their identity.
 */
export function toSpanEvents(spans: SpanRecord[], directory: AgentResolver, pricer: Pricer, receivedAt: Date): SpanEvent[] {
  const received = receivedAt.toISOString();
  const agents = new Map<string, DirectoryAgent | null>();
  const lookup = (key: string): DirectoryAgent | null => {
    let agent = agents.get(key);
    if (agent === undefined) agents.set(key, (agent = directory.resolve(key) ?? null));
    return agent;
  };
  const events = spans as SpanEvent[];
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i]!;
    let agent: DirectoryAgent | null = null;
    let key = '';
    for (const candidate of [span.agent_id, span.agent_name, span.service_name]) {
      if (!candidate) continue;
      key ||= candidate;
      agent = lookup(candidate);
      if (agent) {
        key = candidate;
        break;
      }
    }
    const price = priceSpan(span, pricer);
    const event = span as SpanEvent;
    event.registry_agent_id = agent?.id ?? null;
    event.agent_key = key;
    event.cost_usd = price.cost_usd;
    event.priced = price.priced;
    event.received_at = received;
  }
  return events;
}
