// `ledger` scanner: agent identifiers in the analytics ledger with no registry agent: cost events
// stored unattributed (agent_id NULL, decisions §2), and cost events or signals of agents that
// were removed from the registry since. Each identifier becomes (or refreshes) one agent whose
// external_id is that identifier, so the events that follow are attributed to it.
import { fromDateTime64, toDateTime64 } from '../../../lib/analytics/time.ts';
import type { Evidence } from '../../../schemas/discovery.ts';
import type { FoundAgent } from './upsert.ts';
import type { Scanner, ScannerContext } from './tally.ts';

const MAX_IDENTIFIERS = 10_000;
const MAX_MODELS_SHOWN = 10;
/** Providers that run on the customer's own machines: calls to them are not external. */
const LOCAL_PROVIDERS = new Set(['ollama', 'vllm', 'llamacpp', 'llama.cpp', 'lmstudio', 'local']);

interface Candidate {
  externalId: string;
  evidence: Evidence[];
  uses: Map<string, { count: number; provider: string }>;
  events: number;
  signals: number;
  costUsd: number;
  lastAt?: string;
  removedAgentIds: string[];
}

interface UnattributedRow { external_id: string; events: number; cost_usd: number; first_at: string; last_at: string; models: string[]; uses: number[]; providers: string[] }
interface ByAgentRow { agent_id: string; external_id: string; events: number; first_at: string; last_at: string }

export const ledgerScanner: Scanner = async (ctx) => {
  const since = toDateTime64(new Date(ctx.now().getTime() - ctx.options.ledgerWindowDays * 86_400_000).toISOString());
  const candidates = new Map<string, Candidate>();
  const candidate = (externalId: string): Candidate => {
    let c = candidates.get(externalId);
    if (!c) candidates.set(externalId, (c = { externalId, evidence: [], uses: new Map(), events: 0, signals: 0, costUsd: 0, removedAgentIds: [] }));
    return c;
  };

  for (const row of await unattributedCostEvents(ctx, since)) {
    const c = candidate(row.external_id);
    const events = Number(row.events);
    c.events += events;
    c.costUsd += Number(row.cost_usd);
    row.models.forEach((model, i) => c.uses.set(model, { count: Number(row.uses[i]), provider: row.providers[i] ?? '' }));
    c.lastAt = latest(c.lastAt, fromDateTime64(row.last_at));
    const models = [...c.uses.entries()].filter(([m]) => m !== '').sort((a, b) => b[1].count - a[1].count).slice(0, MAX_MODELS_SHOWN).map(([m]) => m);
    c.evidence.push({ scanner: 'ledger', kind: 'cost_events', value: row.external_id, count: events, first_at: fromDateTime64(row.first_at), last_at: fromDateTime64(row.last_at), models });
  }
  const removed = await removedAgents(ctx, since);
  for (const [kind, rows] of [['cost_events', removed.costs], ['signals', removed.signals]] as const) {
    for (const row of rows) {
      if (!row.external_id) continue;
      const c = candidate(row.external_id);
      const n = Number(row.events);
      if (kind === 'signals') c.signals += n;
      else c.events += n;
      if (!c.removedAgentIds.includes(row.agent_id)) c.removedAgentIds.push(row.agent_id);
      c.lastAt = latest(c.lastAt, fromDateTime64(row.last_at));
      c.evidence.push({ scanner: 'ledger', kind, value: row.agent_id, count: n, first_at: fromDateTime64(row.first_at), last_at: fromDateTime64(row.last_at) });
    }
  }
  ctx.tally.details.window_days = ctx.options.ledgerWindowDays;
  ctx.tally.details.identifiers = candidates.size;
  for (const c of [...candidates.values()].slice(0, MAX_IDENTIFIERS)) {
    if (ctx.signal.aborted) return;
    await ctx.tally.upsert(ctx, foundAgent(ctx, c));
  }
};

function foundAgent(ctx: ScannerContext, c: Candidate): FoundAgent {
  const ranked = [...c.uses.entries()].filter(([m]) => m !== '').sort((a, b) => b[1].count - a[1].count);
  const top = ranked[0];
  const providers = [...new Set([...c.uses.values()].map((u) => u.provider.toLowerCase()))];
  return {
    external_id: c.externalId,
    declared: {
      name: c.externalId,
      framework: 'UNKNOWN',
      primary_model: top ? top[0] : null,
      model_provider: top ? providerId(top[1].provider) : null,
      ...(c.events > 0 ? { external_llm_calls: providers.some((p) => !LOCAL_PROVIDERS.has(p)) } : {}),
    },
    observations: ranked.length > 0 ? { models: Object.fromEntries(ranked.map(([m, u]) => [m, u.count])) } : undefined,
    seenAt: c.lastAt ? new Date(c.lastAt) : undefined,
    finding: {
      scanner: 'ledger',
      scanId: ctx.scanId,
      evidence: c.evidence,
      facts: {
        cost_events: c.events,
        signals: c.signals,
        cost_usd: Number(c.costUsd.toFixed(6)),
        models: Object.fromEntries(ranked.slice(0, MAX_MODELS_SHOWN).map(([m, u]) => [m, u.count])),
        removed_agent_ids: c.removedAgentIds,
        window_days: ctx.options.ledgerWindowDays,
      },
    },
  };
}

function unattributedCostEvents(ctx: ScannerContext, since: string): Promise<UnattributedRow[]> {
  return ctx.analytics.query<UnattributedRow>(
    `SELECT agent_external_id AS external_id, toUInt32(sum(n)) AS events, toFloat64(sum(cost)) AS cost_usd,
            toString(min(first_at)) AS first_at, toString(max(last_at)) AS last_at,
            groupArray(model) AS models, groupArray(toUInt32(n)) AS uses, groupArray(provider) AS providers
     FROM (
       SELECT agent_external_id, model, any(provider) AS provider, count() AS n, sum(cost_usd) AS cost,
              min(occurred_at) AS first_at, max(occurred_at) AS last_at
       FROM raw_cost_events
       WHERE agent_id IS NULL AND agent_external_id != '' AND occurred_at >= {since:DateTime64(3, 'UTC')}
       GROUP BY agent_external_id, model
     )
     GROUP BY agent_external_id
     ORDER BY events DESC, external_id
     LIMIT {max:UInt32}`,
    { since, max: MAX_IDENTIFIERS },
  );
}

/** Registry agents the ledger names by uuid that the registry no longer has. */
async function removedAgents(ctx: ScannerContext, since: string): Promise<{ costs: ByAgentRow[]; signals: ByAgentRow[] }> {
  const byAgent = (table: string, time: string, notNull: string) =>
    ctx.analytics.query<ByAgentRow>(
      `SELECT toString(agent_id) AS agent_id, any(agent_external_id) AS external_id, toUInt32(count()) AS events,
              toString(min(${time})) AS first_at, toString(max(${time})) AS last_at
       FROM ${table} WHERE ${notNull} AND ${time} >= {since:DateTime64(3, 'UTC')}
       GROUP BY agent_id LIMIT {max:UInt32}`,
      { since, max: MAX_IDENTIFIERS },
    );
  const costs = await byAgent('raw_cost_events', 'occurred_at', 'agent_id IS NOT NULL');
  const signals = await byAgent('raw_signals', 'received_at', '1');
  const ids = [...new Set([...costs, ...signals].map((r) => r.agent_id))];
  if (ids.length === 0) return { costs: [], signals: [] };
  const { rows } = await ctx.db.query<{ id: string }>('SELECT id::text AS id FROM agents WHERE id = ANY($1::uuid[])', [ids]);
  const present = new Set(rows.map((r) => r.id));
  const gone = (r: ByAgentRow) => !present.has(r.agent_id);
  return { costs: costs.filter(gone), signals: signals.filter(gone) };
}

/** Provider names as the registry stores them: upper snake case (OPENAI, AZURE_OPENAI). */
function providerId(provider: string): string | null {
  const id = provider.trim().toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_|_$/g, '');
  return id === '' || id === 'UNKNOWN' ? null : id;
}

function latest(a: string | undefined, b: string): string {
  return !a || Date.parse(b) > Date.parse(a) ? b : a;
}
