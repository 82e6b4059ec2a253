// GET /metrics: Prometheus text exposition (format 0.0.4) of this process. Public like /health:
// it carries counts and queue depths, never tenant data; operators keep it off the internet the
// same way they keep /health (see docs/scale.md). Every health check becomes `aor_up{check}`
// plus one gauge per numeric detail, so queue depths of any component show up without each
// one writing metrics code; components with labelled series (consumer lag per partition) add
// their own samples through `metrics()`.
import type { HealthCheck } from './health.ts';
import type { Route } from './http/types.ts';

export interface MetricSample {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  labels?: Record<string, string | number>;
  value: number;
}

export interface MetricsSource {
  metrics(): MetricSample[] | Promise<MetricSample[]>;
}

export function hasMetrics(value: unknown): value is MetricsSource {
  return typeof (value as Partial<MetricsSource> | null)?.metrics === 'function';
}

export function metricsRoute(checks: HealthCheck[], sources: MetricsSource[]): Route {
  return {
    method: 'GET',
    pattern: '/metrics',
    async handler() {
      const samples: MetricSample[] = [];
      await Promise.all(
        checks.map(async (c) => {
          const result = await withTimeout(c.check(), 3_000).catch(() => ({ up: false, details: undefined }));
          samples.push({ name: 'aor_up', help: 'Whether a store or component of this process is up (1) or down (0).', type: 'gauge', labels: { check: c.name }, value: result.up ? 1 : 0 });
          for (const [key, value] of Object.entries(result.details ?? {})) {
            if (typeof value !== 'number' || !Number.isFinite(value)) continue;
            samples.push({ name: `aor_${metricName(c.name)}_${metricName(key)}`, help: `Health detail "${key}" of ${c.name}.`, type: 'gauge', value });
          }
        }),
      );
      for (const source of sources) samples.push(...(await source.metrics()));
      return { status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }, body: renderMetrics(samples) };
    },
  };
}

/** Groups samples by name (one HELP/TYPE per family, as the format requires). */
export function renderMetrics(samples: readonly MetricSample[]): string {
  const families = new Map<string, MetricSample[]>();
  for (const sample of samples) {
    const list = families.get(sample.name);
    if (list) list.push(sample);
    else families.set(sample.name, [sample]);
  }
  const lines: string[] = [];
  for (const [name, list] of families) {
    lines.push(`# HELP ${name} ${list[0]!.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
    lines.push(`# TYPE ${name} ${list[0]!.type}`);
    for (const sample of list) lines.push(`${name}${renderLabels(sample.labels)} ${formatValue(sample.value)}`);
  }
  return lines.join('\n') + '\n';
}

function renderLabels(labels: MetricSample['labels']): string {
  if (!labels || Object.keys(labels).length === 0) return '';
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  return `{${parts.join(',')}}`;
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}

const metricName = (raw: string) => raw.replace(/[^a-zA-Z0-9_]/g, '_').toLowerCase();

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}
