// Metrics and logs exports are counted (not kept yet), and every OTLP answer we build must be
// read back by the OpenTelemetry SDK's own response deserialisers (the ones its exporters use).
import {
  JsonLogsSerializer, JsonMetricsSerializer, JsonTraceSerializer,
  ProtobufLogsSerializer, ProtobufMetricsSerializer, ProtobufTraceSerializer,
} from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../lib/errors.ts';
import { decodeBody, type OtlpFormat } from '../lib/otlp/decode-body.ts';
import { countLogRecords, countMetricDataPoints } from '../lib/otlp/metrics-logs.ts';
import { exportError, exportSuccess } from '../lib/otlp/responses.ts';

const MAX = 1024 * 1024;
const CONTENT_TYPE: Record<OtlpFormat, string> = { json: 'application/json', protobuf: 'application/x-protobuf' };
const resource = resourceFromAttributes({ 'service.name': 'support-bot' });

class CollectingReader extends MetricReader {
  protected override onShutdown(): Promise<void> { return Promise.resolve(); }
  protected override onForceFlush(): Promise<void> { return Promise.resolve(); }
}

/** 2 counter points (two attribute sets) + 1 histogram point + 1 gauge point = 4. */
async function metricsPayload(format: OtlpFormat): Promise<Buffer> {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ resource, readers: [reader] });
  const meter = provider.getMeter('signals-test');
  const counter = meter.createCounter('gen_ai.requests');
  counter.add(1, { model: 'gpt-4o' });
  counter.add(2, { model: 'claude' });
  meter.createHistogram('gen_ai.client.operation.duration').record(0.42);
  meter.createGauge('queue.depth').record(3);
  const { resourceMetrics } = await reader.collect();
  const bytes = (format === 'json' ? JsonMetricsSerializer : ProtobufMetricsSerializer).serializeRequest(resourceMetrics);
  await provider.shutdown();
  return Buffer.from(bytes!);
}

function logsPayload(format: OtlpFormat, count: number): Buffer {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter })] });
  const logger = provider.getLogger('signals-test');
  for (let i = 0; i < count; i++) logger.emit({ body: `record ${i}`, attributes: { i } });
  const records = exporter.getFinishedLogRecords();
  return Buffer.from((format === 'json' ? JsonLogsSerializer : ProtobufLogsSerializer).serializeRequest(records)!);
}

// google.rpc.Status through protobufjs reflection, independent of the writer under test.
const Status = protobuf.Root.fromJSON({
  nested: { google: { nested: { rpc: { nested: { Status: { fields: {
    code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 },
  } } } } } } },
}).lookupType('google.rpc.Status');

describe.each(['json', 'protobuf'] as const)('OTLP %s metrics and logs', (format) => {
  it('counts metric data points across metric kinds', async () => {
    const body = await decodeBody(await metricsPayload(format), CONTENT_TYPE[format], undefined, MAX);
    expect(countMetricDataPoints(body)).toBe(4);
  });

  it('counts log records', async () => {
    const body = await decodeBody(logsPayload(format, 5), CONTENT_TYPE[format], undefined, MAX);
    expect(countLogRecords(body)).toBe(5);
  });

  it('counts an empty export as zero', async () => {
    const body = await decodeBody(Buffer.alloc(0), CONTENT_TYPE[format], undefined, MAX);
    expect(countLogRecords(body)).toBe(0);
    expect(countMetricDataPoints(body)).toBe(0);
  });
});

describe('OTLP metrics and logs errors', () => {
  it('answers 400 for a truncated protobuf export', async () => {
    const payload = logsPayload('protobuf', 2);
    const body = await decodeBody(payload.subarray(0, payload.length - 3), 'application/x-protobuf', undefined, MAX);
    const error = (() => { try { countLogRecords(body); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
  });

  it('answers 400 for a JSON export whose containers are not arrays', async () => {
    const body = await decodeBody(Buffer.from('{"resourceMetrics":{"a":1}}'), 'application/json', undefined, MAX);
    expect(() => countMetricDataPoints(body)).toThrowError(AppError);
  });
});

describe('OTLP answers', () => {
  it('full success is an empty response the SDK reads as such', () => {
    const json = exportSuccess('traces', 'json');
    expect(json).toMatchObject({ status: 200, contentType: 'application/json' });
    expect(JsonTraceSerializer.deserializeResponse(json.body)).toEqual({});
    const proto = exportSuccess('traces', 'protobuf', { rejected: 0 });
    expect(proto.contentType).toBe('application/x-protobuf');
    expect(proto.body.length).toBe(0);
    expect(ProtobufTraceSerializer.deserializeResponse(proto.body)).toEqual({});
  });

  it('partial success carries rejected spans and the message, in both encodings', () => {
    const partial = { rejected: 2, errorMessage: '2 span(s) rejected: trace_id is missing' };
    expect(ProtobufTraceSerializer.deserializeResponse(exportSuccess('traces', 'protobuf', partial).body))
      .toEqual({ partialSuccess: { rejectedSpans: 2, errorMessage: partial.errorMessage } });
    expect(JsonTraceSerializer.deserializeResponse(exportSuccess('traces', 'json', partial).body))
      .toEqual({ partialSuccess: { rejectedSpans: '2', errorMessage: partial.errorMessage } });
  });

  it('uses each signal\'s own partial-success field', () => {
    const partial = { rejected: 3, errorMessage: 'not kept' };
    expect(ProtobufMetricsSerializer.deserializeResponse(exportSuccess('metrics', 'protobuf', partial).body))
      .toEqual({ partialSuccess: { rejectedDataPoints: 3, errorMessage: 'not kept' } });
    expect(ProtobufLogsSerializer.deserializeResponse(exportSuccess('logs', 'protobuf', partial).body))
      .toEqual({ partialSuccess: { rejectedLogRecords: 3, errorMessage: 'not kept' } });
    expect(JsonLogsSerializer.deserializeResponse(exportSuccess('logs', 'json', partial).body))
      .toEqual({ partialSuccess: { rejectedLogRecords: '3', errorMessage: 'not kept' } });
  });

  it('errors are google.rpc.Status in the request encoding, JSON when it is unknown', () => {
    const bad = new AppError({ code: 'otlp_undecodable', status: 400, detail: 'not OTLP' });
    const proto = exportError('protobuf', bad);
    expect(proto).toMatchObject({ status: 400, contentType: 'application/x-protobuf', headers: {} });
    expect(Status.toObject(Status.decode(proto.body))).toEqual({ code: 3, message: 'not OTLP' });
    const unknown = exportError(undefined, new AppError({ code: 'unsupported_media_type', status: 415, detail: 'no' }));
    expect(unknown.contentType).toBe('application/json');
    expect(JSON.parse(unknown.body.toString())).toEqual({ code: 3, message: 'no' });
  });

  it('429 and 503 carry Retry-After', () => {
    const busy = exportError('json', new AppError({ code: 'store_unavailable', status: 503, detail: 'later', retryAfterSeconds: 5 }));
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('5');
    expect(JSON.parse(busy.body.toString())).toEqual({ code: 14, message: 'later' });
  });
});
