// Metrics and logs exports are accepted but not kept yet: the route only needs to know the
// request is well-formed and how many items it carried. Counting still walks every level, so a
// malformed payload gets the same 400 it would get once these signals are stored.
import type { DecodedBody } from './decode-body.ts';
import { field, isObject, list, type JsonObject } from './otlp-json.ts';
import { asUndecodable, createReader, expectEnd, lengthEnd, WIRE_LEN, type Reader } from './proto-common.ts';

// Field numbers from opentelemetry-proto collector/metrics/v1 and metrics/v1:
// request.resource_metrics=1 → scope_metrics=2 → metrics=2 → gauge=5 | sum=7 | histogram=9 |
// exponential_histogram=10 | summary=11 → data_points=1.
const METRIC_PATH: readonly (readonly number[])[] = [[1], [2], [2], [5, 7, 9, 10, 11], [1]];
// collector/logs/v1 and logs/v1: request.resource_logs=1 → scope_logs=2 → log_records=2.
const LOG_PATH: readonly (readonly number[])[] = [[1], [2], [2]];

const METRIC_KINDS: readonly [string, string][] = [
  ['gauge', 'gauge'], ['sum', 'sum'], ['histogram', 'histogram'],
  ['exponentialHistogram', 'exponential_histogram'], ['summary', 'summary'],
];

/**
 * Number of data points in an ExportMetricsServiceRequest.
 * @throws AppError 400 otlp_undecodable
 */
export function countMetricDataPoints(body: DecodedBody): number {
  if (body.format === 'protobuf') return countProto(body.bytes, METRIC_PATH);
  let n = 0;
  for (const scopeMetrics of children(body.json as JsonObject, 'resourceMetrics', 'resource_metrics', 'scopeMetrics', 'scope_metrics')) {
    for (const metric of list(scopeMetrics, 'metrics', 'metrics')) {
      if (!isObject(metric)) continue;
      for (const [camel, snake] of METRIC_KINDS) {
        const data = field(metric, camel, snake);
        if (isObject(data)) n += list(data, 'dataPoints', 'data_points').length;
      }
    }
  }
  return n;
}

/**
 * Number of log records in an ExportLogsServiceRequest.
 * @throws AppError 400 otlp_undecodable
 */
export function countLogRecords(body: DecodedBody): number {
  if (body.format === 'protobuf') return countProto(body.bytes, LOG_PATH);
  let n = 0;
  for (const scopeLogs of children(body.json as JsonObject, 'resourceLogs', 'resource_logs', 'scopeLogs', 'scope_logs')) {
    n += list(scopeLogs, 'logRecords', 'log_records').length;
  }
  return n;
}

/** The scope-level objects of a request: request.resourceX[].scopeX[]. */
function* children(json: JsonObject, resourceCamel: string, resourceSnake: string, scopeCamel: string, scopeSnake: string): Generator<JsonObject> {
  for (const resource of list(json, resourceCamel, resourceSnake)) {
    if (!isObject(resource)) continue;
    for (const scope of list(resource, scopeCamel, scopeSnake)) if (isObject(scope)) yield scope;
  }
}

function countProto(bytes: Buffer, path: readonly (readonly number[])[]): number {
  try {
    const r = createReader(bytes);
    return countLevel(r, r.len, path, 0);
  } catch (error) {
    throw asUndecodable(error);
  }
}

/** Counts the submessages at the end of `path`, descending through the ones along it. */
function countLevel(r: Reader, end: number, path: readonly (readonly number[])[], level: number): number {
  const fields = path[level]!;
  const last = level === path.length - 1;
  let n = 0;
  while (r.pos < end) {
    const tag = r.uint32();
    if ((tag & 7) === WIRE_LEN && fields.includes(tag >>> 3)) {
      const inner = lengthEnd(r);
      if (last) {
        n += 1;
        r.pos = inner;
      } else n += countLevel(r, inner, path, level + 1);
    } else r.skipType(tag & 7);
  }
  expectEnd(r, end);
  return n;
}
