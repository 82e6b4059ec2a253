// Turns validated request bodies into the records the analytics store keeps: agent resolved,
// tokens priced, currency converted, ids and times fixed. Everything here is decided once, at
// ingest, so that a redelivered record carries exactly the same figures.
import { createHash, randomUUID } from 'node:crypto';
import { AppError } from '../lib/errors.ts';
import { roundUsd, toDisplay } from '../lib/pricing/pricing.ts';
import type { CostEventRecord, SignalRecord } from '../schemas/analytics-rows.ts';
import type { CostEvent, CostEventAnswer, QualitySignal, QualitySignalAnswer } from '../schemas/ingest.ts';
import type { CostSnapshot } from './cost-context.ts';
import type { DirectoryAgent } from './agent-directory.ts';

const MAX_PAST_MS = 400 * 24 * 3600 * 1000;
const MAX_FUTURE_MS = 5 * 60 * 1000;

export interface PreparedSignal {
  signal: SignalRecord;
  cost?: CostEventRecord;
  answer: QualitySignalAnswer;
}

export interface PreparedCost {
  cost: CostEventRecord;
  answer: CostEventAnswer;
}

/** occurred_at within [now - 400 days, now + 5 minutes], else 422 naming the field. */
export function occurredAt(value: string | undefined, receivedAt: Date): string {
  if (value === undefined) return receivedAt.toISOString();
  const time = Date.parse(value);
  const now = receivedAt.getTime();
  if (Number.isNaN(time) || time < now - MAX_PAST_MS || time > now + MAX_FUTURE_MS) {
    throw new AppError({
      code: 'validation_failed',
      status: 422,
      detail: 'occurred_at must be a real time within the last 400 days and at most 5 minutes ahead.',
      errors: [{ path: '/occurred_at', message: 'out of range' }],
    });
  }
  return new Date(time).toISOString();
}

/** The cost event a signal with tokens creates has an id derived from the signal's, so redelivery dedups it too. */
export function derivedCostEventId(signalId: string): string {
  const hex = createHash('sha256').update(`cost-of-signal:${signalId.toLowerCase()}`).digest('hex');
  // RFC 9562 version 8 (custom) layout: the id is a valid UUID and never collides with a v4.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

interface CostInput {
  eventId: string;
  agent: DirectoryAgent | undefined;
  externalId: string;
  jobId: string;
  model: string;
  provider: string | undefined;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  source: 'cost_event' | 'signal';
  occurredAt: string;
  receivedAt: string;
}

export function buildCostRecord(snapshot: CostSnapshot, input: CostInput): CostEventRecord {
  if (input.cachedInputTokens > input.inputTokens) {
    throw new AppError({
      code: 'validation_failed',
      status: 422,
      detail: 'cached_input_tokens cannot exceed input_tokens.',
      errors: [{ path: '/cached_input_tokens', message: 'must not exceed input_tokens' }],
    });
  }
  const usage = { input_tokens: input.inputTokens, output_tokens: input.outputTokens, cached_input_tokens: input.cachedInputTokens };
  const result = snapshot.pricer.cost(input.model, usage, input.provider);
  const costUsd = roundUsd(result.cost_usd);
  return {
    event_id: input.eventId,
    agent_id: input.agent?.id ?? null,
    agent_external_id: input.externalId,
    department: input.agent?.department ?? '',
    job_id: input.jobId,
    model: input.model,
    provider: input.provider ?? result.price?.provider ?? 'unknown',
    input_tokens: input.inputTokens,
    output_tokens: input.outputTokens,
    cached_input_tokens: input.cachedInputTokens,
    cost_usd: costUsd,
    usd_rate: snapshot.usdRate,
    cost_display: toDisplay(costUsd, snapshot.usdRate),
    display_currency: snapshot.currency,
    priced: result.priced,
    input_usd_per_mtok: result.price?.input ?? 0,
    output_usd_per_mtok: result.price?.output ?? 0,
    cached_input_usd_per_mtok: result.price ? (result.price.cached_input ?? result.price.input) : 0,
    source: input.source,
    occurred_at: input.occurredAt,
    received_at: input.receivedAt,
  };
}

export function prepareSignal(body: QualitySignal, agent: DirectoryAgent, snapshot: CostSnapshot, receivedAt: Date): PreparedSignal {
  const when = occurredAt(body.occurred_at, receivedAt);
  const signalId = (body.event_id ?? randomUUID()).toLowerCase();
  const signal: SignalRecord = {
    signal_id: signalId,
    agent_id: agent.id,
    agent_external_id: agent.external_id,
    job_id: body.job_id,
    overall_passed: body.overall_passed,
    latency_ms: body.latency_ms,
    model: body.model ?? null,
    token_input: body.token_input ?? null,
    token_output: body.token_output ?? null,
    received_at: when,
    checks: body.checks.map((c) => ({ ...c, severity: c.severity.toUpperCase() })),
  };
  // Behaviour rule 1: tokens and a model on a signal also make a cost event.
  const hasCost = body.token_input !== undefined && body.token_output !== undefined && body.model !== undefined;
  const cost = hasCost
    ? buildCostRecord(snapshot, {
        eventId: derivedCostEventId(signalId),
        agent,
        externalId: agent.external_id,
        jobId: body.job_id,
        model: body.model!,
        provider: undefined,
        inputTokens: body.token_input!,
        outputTokens: body.token_output!,
        cachedInputTokens: 0,
        source: 'signal',
        occurredAt: when,
        receivedAt: receivedAt.toISOString(),
      })
    : undefined;
  const answer: QualitySignalAnswer = {
    signal_id: signalId,
    agent_id: agent.id,
    job_id: body.job_id,
    overall_passed: body.overall_passed,
    check_count: body.checks.length,
    passed_count: body.checks.filter((c) => c.passed).length,
    received_at: receivedAt.toISOString(),
  };
  if (cost) answer.cost_event_id = cost.event_id;
  return { signal, cost, answer };
}

export function prepareCost(body: CostEvent, agent: DirectoryAgent | undefined, snapshot: CostSnapshot, receivedAt: Date): PreparedCost {
  const cost = buildCostRecord(snapshot, {
    eventId: (body.event_id ?? randomUUID()).toLowerCase(),
    agent,
    externalId: agent?.external_id ?? body.agent_id,
    jobId: body.job_id,
    model: body.model,
    provider: body.provider,
    inputTokens: body.input_tokens,
    outputTokens: body.output_tokens,
    cachedInputTokens: body.cached_input_tokens ?? 0,
    source: 'cost_event',
    occurredAt: occurredAt(body.occurred_at, receivedAt),
    receivedAt: receivedAt.toISOString(),
  });
  return {
    cost,
    answer: {
      event_id: cost.event_id,
      cost_usd: cost.cost_usd,
      cost_display: cost.cost_display,
      display_currency: cost.display_currency,
      priced: cost.priced,
      agent_id: cost.agent_id,
    },
  };
}
