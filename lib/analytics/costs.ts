// Cost events: loading into raw_cost_events (which feeds spend_per_day). Figures arrive final
// (priced and converted by ingest); this module only stores them exactly once.
import type { CostEventRecord } from '../../schemas/analytics-rows.ts';
import { batchToken, existingIds, uniqueById } from './dedup.ts';
import type { AnalyticsStore } from './store.ts';
import { toDateTime64 } from './time.ts';

/** Nil UUID: the agent_id of unattributed spend in spend_per_day. */
export const UNATTRIBUTED_AGENT_ID = '00000000-0000-0000-0000-000000000000';

// Columns listed one by one: a record that grew a field upstream must not break the insert.
function costRow(e: CostEventRecord) {
  return {
    event_id: e.event_id,
    agent_id: e.agent_id,
    agent_external_id: e.agent_external_id,
    department: e.department,
    job_id: e.job_id,
    model: e.model,
    provider: e.provider,
    input_tokens: e.input_tokens,
    output_tokens: e.output_tokens,
    cached_input_tokens: e.cached_input_tokens,
    cost_usd: e.cost_usd,
    usd_rate: e.usd_rate,
    cost_display: e.cost_display,
    display_currency: e.display_currency,
    priced: e.priced,
    input_usd_per_mtok: e.input_usd_per_mtok,
    output_usd_per_mtok: e.output_usd_per_mtok,
    cached_input_usd_per_mtok: e.cached_input_usd_per_mtok,
    source: e.source,
    occurred_at: toDateTime64(e.occurred_at),
    received_at: toDateTime64(e.received_at),
  };
}

/**
 * Stores cost events not stored before; returns how many were new. `dedupToken` names the
 * delivery and must be the same when the same batch is delivered again.
 */
export async function insertCostEvents(store: AnalyticsStore, events: readonly CostEventRecord[], dedupToken: string): Promise<number> {
  const unique = uniqueById(events, (e) => e.event_id);
  const stored = await existingIds(store, 'raw_cost_events', 'event_id', unique.map((e) => e.event_id));
  const fresh = unique.filter((e) => !stored.has(e.event_id.toLowerCase()));
  if (fresh.length === 0) return 0;
  const token = batchToken(dedupToken, fresh.map((e) => e.event_id));
  await store.insert('raw_cost_events', fresh.map(costRow), { dedupToken: token });
  return fresh.length;
}
