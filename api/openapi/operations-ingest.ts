// The public write endpoints of the ingest tier.
import { BatchAnswerSchema, CostEventAnswerSchema, CostEventSchema, QualitySignalAnswerSchema, QualitySignalSchema } from '../../schemas/ingest.ts';
import type { Operation } from './operation-types.ts';

const BATCH_TYPES = ['application/json', 'application/x-ndjson'];
const WRITE_ERRORS = [400, 403, 413, 415, 422, 503];

export const INGEST_OPERATIONS: Operation[] = [
  {
    id: 'postQualitySignal', method: 'POST', pattern: '/api/v1/jobs/:job_id/quality', tag: 'ingest', auth: 'none',
    summary: 'Quality signal of a job',
    description: 'Answered 202 once durable. An unknown agent is registered as DISCOVERED (403 agent_limit_reached at the limit). With token_input, token_output and model it also creates a cost event. Send event_id to make retries idempotent.',
    body: QualitySignalSchema, responses: { 202: { description: 'Accepted and durable', schema: QualitySignalAnswerSchema } }, errors: WRITE_ERRORS,
  },
  {
    id: 'postQualitySignalBatch', method: 'POST', pattern: '/api/v1/quality/batch', tag: 'ingest', auth: 'none',
    summary: 'Many quality signals (JSON array or NDJSON, at most 10,000)',
    description: 'Each item is a quality signal with its own job_id. 200 when every item is accepted, 207 when some are not; each item carries the status it would have had alone.',
    body: QualitySignalSchema, bodyMediaTypes: BATCH_TYPES, responses: { 200: { description: 'All accepted', schema: BatchAnswerSchema }, 207: { description: 'Some refused', schema: BatchAnswerSchema } }, errors: WRITE_ERRORS,
  },
  {
    id: 'postCostEvent', method: 'POST', pattern: '/api/v1/costs/events', tag: 'ingest', auth: 'none',
    summary: 'LLM cost event',
    description: 'Priced at ingest with the instance price table; an unknown model costs 0 and is flagged priced: false. An agent not in the registry makes unattributed cost.',
    body: CostEventSchema, responses: { 202: { description: 'Accepted and durable', schema: CostEventAnswerSchema } }, errors: WRITE_ERRORS,
  },
  {
    id: 'postCostEventBatch', method: 'POST', pattern: '/api/v1/costs/events/batch', tag: 'ingest', auth: 'none',
    summary: 'Many cost events (JSON array or NDJSON, at most 10,000)',
    body: CostEventSchema, bodyMediaTypes: BATCH_TYPES, responses: { 200: { description: 'All accepted', schema: BatchAnswerSchema }, 207: { description: 'Some refused', schema: BatchAnswerSchema } }, errors: WRITE_ERRORS,
  },
];
