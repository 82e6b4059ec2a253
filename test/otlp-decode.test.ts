// OTLP trace decoding against real export payloads: spans made by the OpenTelemetry JS SDK and
// serialised by @opentelemetry/otlp-transformer, the code the OTLP exporters themselves use.
import zlib from 'node:zlib';
import { SpanKind, SpanStatusCode, context, trace, type Attributes, type HrTime } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { AppError } from '../lib/errors.ts';
import { decodeBody, type OtlpFormat } from '../lib/otlp/decode-body.ts';
import { decodeTraces } from '../lib/otlp/traces.ts';
import { SpanRecordSchema } from '../schemas/otlp.ts';

const MAX = 1024 * 1024;
const CONTENT_TYPE: Record<OtlpFormat, string> = { json: 'application/json', protobuf: 'application/x-protobuf' };
const START: HrTime = [1717000000, 123456789]; // 2024-05-29 16:26:40.123456789 UTC
const END: HrTime = [1717000001, 987654321];

function makeSpans(): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-bot', 'gen_ai.agent.name': 'resource-agent', 'deployment.environment': 'prod' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('genai-instrumentation', '1.2.3');
  const current: Attributes = {
    'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'triage-agent', 'gen_ai.agent.id': 'agent-123',
    'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.response.model': 'gpt-4o-2024-08-06',
    'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 350,
    'gen_ai.usage.cache_read.input_tokens': 400, 'gen_ai.usage.cache_creation.input_tokens': 50,
    'app.ratio': 1.5, 'app.flag': true, 'app.tags': ['a', 'b'],
  };
  const root = tracer.startSpan('invoke_agent triage', { kind: SpanKind.SERVER, attributes: current, startTime: START });
  root.setStatus({ code: SpanStatusCode.ERROR, message: 'tool failed' });
  const parent = trace.setSpan(context.active(), root);
  const older: Attributes = {
    'gen_ai.system': 'anthropic', 'gen_ai.request.model': 'claude-3-5-sonnet', 'gen_ai.operation.name': 'chat',
    'gen_ai.usage.prompt_tokens': 10, 'gen_ai.usage.completion_tokens': 20,
    'gen_ai.usage.cache_read_input_tokens': 5, 'gen_ai.usage.cache_creation_input_tokens': 6,
  };
  tracer.startSpan('chat claude', { kind: SpanKind.CLIENT, attributes: older, startTime: START }, parent).end(END);
  // Both names on one span: the current one wins whatever the order.
  const both: Attributes = {
    'gen_ai.usage.prompt_tokens': 999, 'gen_ai.usage.input_tokens': 7,
    'gen_ai.system': 'old-system', 'gen_ai.provider.name': 'new-provider',
  };
  tracer.startSpan('both names', { attributes: both, startTime: START }, parent).end(END);
  root.end(END);
  return exporter.getFinishedSpans();
}

function serialize(spans: ReadableSpan[], format: OtlpFormat): Buffer {
  const bytes = (format === 'json' ? JsonTraceSerializer : ProtobufTraceSerializer).serializeRequest(spans);
  if (!bytes) throw new Error('serializer returned nothing');
  return Buffer.from(bytes);
}

async function decode(body: Buffer, format: OtlpFormat, encoding?: string) {
  return decodeTraces(await decodeBody(body, CONTENT_TYPE[format], encoding, MAX));
}

/** A span whose ids the SDK would never produce, to exercise partial success. */
function withoutIds(span: ReadableSpan): ReadableSpan {
  const ctx = { ...span.spanContext(), traceId: '', spanId: '' };
  return Object.create(span, { spanContext: { value: () => ctx } }) as ReadableSpan;
}

async function expectAppError(promise: Promise<unknown>, status: number, code: string): Promise<void> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).status).toBe(status);
  expect((error as AppError).code).toBe(code);
}

describe.each(['json', 'protobuf'] as const)('decodeTraces from OTLP %s', (format) => {
  const spans = makeSpans();
  const byName = <T extends { name: string }>(rows: T[], name: string): T => rows.find((r) => r.name === name)!;

  it('decodes ids, times, kind, status, scope, service and attributes exactly', async () => {
    const result = await decode(serialize(spans, format), format);
    expect(result.rejected).toBe(0);
    expect(result.errorMessage).toBeUndefined();
    expect(result.spans).toHaveLength(3);
    for (const row of result.spans) expect([...Value.Errors(SpanRecordSchema, row)]).toEqual([]);
    const sdkRoot = spans.find((s) => s.name === 'invoke_agent triage')!;
    const root = byName(result.spans, 'invoke_agent triage');
    expect(root.trace_id).toBe(sdkRoot.spanContext().traceId);
    expect(root.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(root.span_id).toBe(sdkRoot.spanContext().spanId);
    expect(root.parent_span_id).toBe('');
    expect(root.start_time).toBe('2024-05-29 16:26:40.123456789');
    expect(root.end_time).toBe('2024-05-29 16:26:41.987654321');
    expect(root.duration_ms).toBeCloseTo(1864.197532, 6);
    expect(root.kind).toBe('SERVER');
    expect(root.status_code).toBe('ERROR');
    expect(root.status_message).toBe('tool failed');
    expect(root.service_name).toBe('support-bot');
    expect(root.scope_name).toBe('genai-instrumentation');
    expect(root.scope_version).toBe('1.2.3');
    expect(root.resource_attributes['deployment.environment']).toBe('prod');
    expect(root.attributes['app.ratio']).toBe('1.5');
    expect(root.attributes['app.flag']).toBe('true');
    expect(root.attributes['app.tags']).toBe('["a","b"]');
    expect(root.attributes['gen_ai.usage.input_tokens']).toBe('1200');

    const child = byName(result.spans, 'chat claude');
    expect(child.trace_id).toBe(root.trace_id);
    expect(child.parent_span_id).toBe(root.span_id);
    expect(child.kind).toBe('CLIENT');
    expect(child.status_code).toBe('UNSET');
  });

  it('maps current GenAI semantic-convention names', async () => {
    const root = byName((await decode(serialize(spans, format), format)).spans, 'invoke_agent triage');
    expect(root).toMatchObject({
      model: 'gpt-4o-2024-08-06', request_model: 'gpt-4o', provider: 'openai', operation: 'invoke_agent',
      agent_name: 'triage-agent', agent_id: 'agent-123', input_tokens: 1200, output_tokens: 350,
      cache_read_tokens: 400, cache_creation_tokens: 50,
    });
  });

  it('maps older GenAI names, falls back to the request model and the resource agent', async () => {
    const rows = (await decode(serialize(spans, format), format)).spans;
    expect(byName(rows, 'chat claude')).toMatchObject({
      model: 'claude-3-5-sonnet', request_model: 'claude-3-5-sonnet', provider: 'anthropic', operation: 'chat',
      agent_name: 'resource-agent', agent_id: '', input_tokens: 10, output_tokens: 20,
      cache_read_tokens: 5, cache_creation_tokens: 6,
    });
    expect(byName(rows, 'both names')).toMatchObject({ input_tokens: 7, provider: 'new-provider', output_tokens: 0, model: '' });
  });

  it('rejects a span without ids and keeps the others (partial success)', async () => {
    const result = await decode(serialize([withoutIds(spans[0]!), ...spans.slice(1)], format), format);
    expect(result.rejected).toBe(1);
    expect(result.errorMessage).toMatch(/trace_id/);
    expect(result.spans).toHaveLength(2);
  });

  it('bounds the attribute map in count and value length', async () => {
    const body = await decodeBody(serialize(spans, format), CONTENT_TYPE[format], undefined, MAX);
    const result = decodeTraces(body, { limits: { maxAttributes: 3, maxValueLength: 4 } });
    const rootId = spans.find((s) => s.name === 'invoke_agent triage')!.spanContext().spanId;
    const root = result.spans.find((s) => s.span_id === rootId)!;
    expect(root.name).toBe('invo');
    expect(Object.keys(root.attributes)).toHaveLength(3);
    for (const value of Object.values(root.attributes)) expect(value.length).toBeLessThanOrEqual(4);
    expect(root.model).toBe('gpt-');
  });

  it.each(['gzip', 'deflate', 'x-gzip'])('decodes a %s body', async (encoding) => {
    const raw = serialize(spans, format);
    const compressed = encoding === 'deflate' ? zlib.deflateSync(raw) : zlib.gzipSync(raw);
    const result = await decode(compressed, format, encoding);
    expect(result.spans.map((s) => s.span_id).sort()).toEqual(spans.map((s) => s.spanContext().spanId).sort());
  });

  it('answers 413 for a compressed body that inflates past the limit', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(16 * MAX));
    expect(bomb.length).toBeLessThan(MAX / 16);
    await expectAppError(decodeBody(bomb, CONTENT_TYPE[format], 'gzip', MAX), 413, 'payload_too_large');
    await expectAppError(decodeBody(Buffer.alloc(MAX + 1), CONTENT_TYPE[format], undefined, MAX), 413, 'payload_too_large');
  });

  it('treats an empty body as an empty export', async () => {
    expect(await decode(Buffer.alloc(0), format)).toEqual({ spans: [], rejected: 0 });
  });
});

describe('OTLP body errors', () => {
  it('answers 415 for other content types and encodings', async () => {
    await expectAppError(decodeBody(Buffer.from('{}'), 'text/plain', undefined, MAX), 415, 'unsupported_media_type');
    await expectAppError(decodeBody(Buffer.from('{}'), undefined, undefined, MAX), 415, 'unsupported_media_type');
    await expectAppError(decodeBody(Buffer.from('{}'), 'application/json', 'compress', MAX), 415, 'unsupported_content_encoding');
  });

  it('accepts content-type parameters and case', async () => {
    const body = await decodeBody(Buffer.from('{"resourceSpans":[]}'), 'Application/JSON; charset=utf-8', undefined, MAX);
    expect(body).toEqual({ format: 'json', json: { resourceSpans: [] } });
  });

  it('answers 400 for garbage JSON, a non-object and a wrong JSON structure', async () => {
    await expectAppError(decodeBody(Buffer.from('{not json'), 'application/json', undefined, MAX), 400, 'otlp_undecodable');
    await expectAppError(decodeBody(Buffer.from('[1,2]'), 'application/json', undefined, MAX), 400, 'otlp_undecodable');
    const wrong = await decodeBody(Buffer.from('{"resourceSpans":"x"}'), 'application/json', undefined, MAX);
    await expectAppError(Promise.resolve().then(() => decodeTraces(wrong)), 400, 'otlp_undecodable');
  });

  it('answers 400 for garbage protobuf and for a truncated message', async () => {
    for (const bytes of [Buffer.from('this is not protobuf'), Buffer.from([0x0a, 0xff, 0xff, 0x03, 0x01])]) {
      const body = await decodeBody(bytes, 'application/x-protobuf', undefined, MAX);
      await expectAppError(Promise.resolve().then(() => decodeTraces(body)), 400, 'otlp_undecodable');
    }
    const valid = serialize(makeSpans(), 'protobuf');
    const truncated = await decodeBody(valid.subarray(0, valid.length - 7), 'application/x-protobuf', undefined, MAX);
    await expectAppError(Promise.resolve().then(() => decodeTraces(truncated)), 400, 'otlp_undecodable');
  });

  it('answers 400 for a gzip header on a body that is not gzip', async () => {
    await expectAppError(decodeBody(Buffer.from('plain'), 'application/json', 'gzip', MAX), 400, 'otlp_undecodable');
  });

  it('reads raw deflate, uppercase hex ids, base64 ids and an all-zero parent (root) in JSON', async () => {
    const spans = makeSpans();
    const json = JSON.parse(serialize(spans, 'json').toString()) as { resourceSpans: { scopeSpans: { spans: Record<string, string>[] }[] }[] };
    const first = json.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    const traceId = first.traceId!;
    first.traceId = traceId.toUpperCase();
    first.spanId = Buffer.from(first.spanId!, 'hex').toString('base64');
    first.parentSpanId = '0'.repeat(16);
    const body = zlib.deflateRawSync(Buffer.from(JSON.stringify(json)));
    const result = decodeTraces(await decodeBody(body, 'application/json', 'deflate', MAX));
    expect(result.rejected).toBe(0);
    expect(result.spans.find((s) => s.name === first.name)).toMatchObject({
      trace_id: traceId, span_id: spans.find((s) => s.name === first.name)!.spanContext().spanId, parent_span_id: '',
    });
  });
});
