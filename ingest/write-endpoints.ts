// The public write endpoints for quality signals and cost events, single and batched. Each
// request is validated, its agent resolved from memory, its figures fixed, and it is answered
// only when the event log says its events are durable.
import { AppError, asAppError, toProblem } from '../lib/errors.ts';
import { compile, readBody, readJson } from '../lib/http/body.ts';
import type { HttpRequest, HttpReply, Route } from '../lib/http/types.ts';
import type { EventLog } from '../lib/event-log/types.ts';
import type { CostEventRecord, SignalRecord } from '../schemas/analytics-rows.ts';
import { CostEventSchema, QualitySignalSchema, type QualitySignal } from '../schemas/ingest.ts';
import type { AgentDirectory, DirectoryAgent } from './agent-directory.ts';
import { BATCH_CONTENT_TYPES, readBatch } from './batch-body.ts';
import type { CostContext } from './cost-context.ts';
import { occurredAt, prepareCost, prepareSignal, type PreparedCost, type PreparedSignal } from './records.ts';

export interface WriteEndpointDeps {
  directory: AgentDirectory;
  costs: CostContext;
  log: EventLog;
  /** Registers an agent first seen in a signal (DISCOVERED); throws 403 agent_limit_reached at the limit. */
  registerAgent(externalId: string): Promise<DirectoryAgent>;
  batchMaxBodyBytes: number;
  now?: () => Date;
}

const signalValidator = compile(QualitySignalSchema);
const costValidator = compile(CostEventSchema);

export function writeEndpointRoutes(deps: WriteEndpointDeps): Route[] {
  const now = deps.now ?? (() => new Date());

  const resolveOrRegister = async (textualId: string): Promise<DirectoryAgent> =>
    deps.directory.resolve(textualId) ?? (await deps.registerAgent(textualId));

  const signalFrom = async (body: QualitySignal, receivedAt: Date): Promise<PreparedSignal> => {
    // Every rule is checked before an unknown agent is registered: a refused signal stores nothing.
    occurredAt(body.occurred_at, receivedAt);
    return prepareSignal(body, await resolveOrRegister(body.agent_id), deps.costs.current, receivedAt);
  };

  const costFrom = async (value: unknown, receivedAt: Date): Promise<PreparedCost> => {
    const body = costValidator.parse(value);
    return prepareCost(body, await deps.directory.resolveFresh(body.agent_id), deps.costs.current, receivedAt);
  };

  /** One append per kind for the whole request, so a batch is one durable write. */
  const commit = async (signals: SignalRecord[], costs: CostEventRecord[]) => {
    await Promise.all([signals.length ? deps.log.append('signals', signals) : undefined, costs.length ? deps.log.append('costs', costs) : undefined]);
  };

  return [
    {
      method: 'POST',
      pattern: '/api/v1/jobs/:job_id/quality',
      async handler(request) {
        const body = readBody(request, signalValidator);
        if (body.job_id !== request.params.job_id) {
          throw new AppError({
            code: 'job_id_mismatch',
            status: 422,
            detail: 'job_id in the body must equal the job_id of the path.',
            errors: [{ path: '/job_id', message: `must equal "${request.params.job_id}"` }],
          });
        }
        const prepared = await signalFrom(body, now());
        await commit([prepared.signal], prepared.cost ? [prepared.cost] : []);
        return { status: 202, body: prepared.answer };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v1/costs/events',
      async handler(request) {
        const prepared = await costFrom(readJson(request), now());
        await commit([], [prepared.cost]);
        return { status: 202, body: prepared.answer };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v1/quality/batch',
      contentTypes: BATCH_CONTENT_TYPES,
      maxBodyBytes: deps.batchMaxBodyBytes,
      handler: (request) =>
        runBatch(request, async (value, receivedAt) => {
          const prepared = await signalFrom(signalValidator.parse(value), receivedAt);
          return { signals: [prepared.signal], costs: prepared.cost ? [prepared.cost] : [], answer: prepared.answer };
        }, commit, now),
    },
    {
      method: 'POST',
      pattern: '/api/v1/costs/events/batch',
      contentTypes: BATCH_CONTENT_TYPES,
      maxBodyBytes: deps.batchMaxBodyBytes,
      handler: (request) =>
        runBatch(request, async (value, receivedAt) => {
          const prepared = await costFrom(value, receivedAt);
          return { signals: [], costs: [prepared.cost], answer: prepared.answer };
        }, commit, now),
    },
  ];
}

interface ItemOutcome {
  signals: SignalRecord[];
  costs: CostEventRecord[];
  answer: unknown;
}

/** Per-item answers: 200 when every item is accepted, 207 when some are not. */
async function runBatch(
  request: HttpRequest,
  prepare: (value: unknown, receivedAt: Date) => Promise<ItemOutcome>,
  commit: (signals: SignalRecord[], costs: CostEventRecord[]) => Promise<void>,
  now: () => Date,
): Promise<HttpReply> {
  const receivedAt = now();
  const items = readBatch(request);
  const results: Array<{ index: number; status: number; result?: unknown; error?: unknown }> = [];
  const signals: SignalRecord[] = [];
  const costs: CostEventRecord[] = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    try {
      if (!item.ok) throw item.error;
      const outcome = await prepare(item.value, receivedAt);
      signals.push(...outcome.signals);
      costs.push(...outcome.costs);
      results.push({ index, status: 202, result: outcome.answer });
    } catch (error) {
      const appError = asAppError(error);
      if (appError.status >= 500) throw appError;
      results.push({ index, status: appError.status, error: toProblem(appError) });
    }
  }
  await commit(signals, costs);
  const rejected = results.filter((r) => r.status >= 400).length;
  return { status: rejected === 0 ? 200 : 207, body: { accepted: results.length - rejected, rejected, items: results } };
}
