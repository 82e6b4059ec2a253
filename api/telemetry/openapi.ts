// The telemetry operations as the OpenAPI document describes them: the OTLP receiver (ingest
// tier, service-account tokens) and the telemetry reads (api tier). Listed in
// api/openapi/operations.ts with the other groups.
import { AgentTelemetrySchema, OtlpExportRequestSchema, TelemetryCostOverviewSchema, TelemetryStatusSchema, TraceSchema } from '../../schemas/telemetry.ts';
import { BEARER_ERRORS, int, type Operation } from '../openapi/operation-types.ts';

const OTLP_TYPES = ['application/json', 'application/x-protobuf'];
const OTLP_ERRORS = [400, 401, 413, 415, 429, 503];

const otlp = (signal: 'traces' | 'metrics' | 'logs', description: string): Operation => ({
  id: `otlpExport${signal[0]!.toUpperCase()}${signal.slice(1)}`,
  method: 'POST',
  pattern: `/api/v1/otel/v1/${signal}`,
  tag: 'telemetry',
  auth: 'service_account',
  summary: `OTLP/HTTP ${signal} export`,
  description: `${description} Answers follow the OTLP/HTTP specification in the request's encoding: 200 Export${signal === 'traces' ? 'Trace' : signal === 'metrics' ? 'Metrics' : 'Logs'}ServiceResponse (partial_success when items were rejected); errors are a google.rpc.Status, not problem+json (except a 413 for a body over the limit on the wire). 429 and 503 carry Retry-After.`,
  body: OtlpExportRequestSchema,
  bodyMediaTypes: OTLP_TYPES,
  responses: { 200: { description: 'Accepted (durable for traces)' } },
  errors: OTLP_ERRORS,
});

const days = (fallback: number) => ({ name: 'days', description: 'Whole UTC days ending today', schema: int(1, 365, fallback) });

export const TELEMETRY_OPERATIONS: Operation[] = [
  otlp('traces', 'Spans are stored, resolved to registry agents (gen_ai.agent.id, gen_ai.agent.name, else service.name, as uuid or external_id) and their GenAI token usage priced.'),
  otlp('metrics', 'Validated and counted, not stored: answered with partial_success (rejected_data_points, error_message).'),
  otlp('logs', 'Validated and counted, not stored: answered with partial_success (rejected_log_records, error_message).'),
  { id: 'getTelemetryStatus', method: 'GET', pattern: '/api/v1/otel/status', tag: 'telemetry', auth: 'bearer', summary: 'Connection status of telemetry ingestion', description: 'Whether spans arrived in the last 15 minutes, the last arrival, spans and services of the last 24 hours, and the last rejected export with its reason.', responses: { 200: { description: 'Status', schema: TelemetryStatusSchema } }, errors: BEARER_ERRORS },
  { id: 'getTelemetryCosts', method: 'GET', pattern: '/api/v1/otel/costs', tag: 'telemetry', auth: 'bearer', summary: 'Telemetry cost per agent beside its cost-event spend', description: 'Never added into the cost totals; add telemetry_cost_usd_without_cost_events to count it for agents that send no cost events.', query: [days(30)], responses: { 200: { description: 'Overview', schema: TelemetryCostOverviewSchema } }, errors: BEARER_ERRORS },
  { id: 'getTrace', method: 'GET', pattern: '/api/v1/otel/traces/:trace_id', tag: 'telemetry', auth: 'bearer', summary: 'Stored spans of one trace', responses: { 200: { description: 'The trace', schema: TraceSchema } }, errors: BEARER_ERRORS },
  { id: 'getAgentTelemetry', method: 'GET', pattern: '/api/v1/agents/:agent_id/telemetry', tag: 'telemetry', auth: 'bearer', summary: 'Telemetry of one agent: spans, errors, latency, models, tokens, telemetry cost', query: [days(7)], responses: { 200: { description: 'Telemetry', schema: AgentTelemetrySchema } }, errors: BEARER_ERRORS },
];
