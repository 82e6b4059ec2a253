// The one place that knows which insert function loads which kind of event. Used by the
// embedded group commit and by the Kafka workers alike, so both load identically.
import { insertCostEvents } from '../analytics/costs.ts';
import { insertSignals } from '../analytics/signals.ts';
import { insertSpans } from '../analytics/spans.ts';
import type { AnalyticsStore } from '../analytics/store.ts';
import type { CostEventRecord, SignalRecord } from '../../schemas/analytics-rows.ts';
import type { SpanEvent } from '../../schemas/telemetry.ts';
import type { BatchLoader } from './types.ts';

export function analyticsLoader(store: AnalyticsStore): BatchLoader {
  return async (kind, events, dedupToken) => {
    switch (kind) {
      case 'signals':
        await insertSignals(store, events as SignalRecord[], dedupToken);
        return;
      case 'costs':
        await insertCostEvents(store, events as CostEventRecord[], dedupToken);
        return;
      case 'spans':
        await insertSpans(store, events as SpanEvent[], dedupToken);
        return;
    }
  };
}
