// Scenario 3 of issue 7: OTLP/HTTP spans into the service (POST /api/v1/otel/v1/traces with a
// service-account token, embedded mode) against an OpenTelemetry Collector (OTLP receiver ->
// nop exporter) under the same loads, in the same run:
//   - telemetrygen, OTLP/HTTP protobuf, 1 worker (see docs/benchmarks.md for why one);
//   - bench/load, OTLP/HTTP JSON, 100 spans per request, 16 connections.
// Spans are what each receiver says it accepted (the Collector's otelcol_receiver_accepted_spans,
// the service's telemetry_status.spans_accepted_total) or, for the JSON feed, 2xx answers × 100.
// Never run in CI.
//
//   npx tsx bench/otlp-spans.ts [--repeat 2] [--duration 10] [--warmup 2] [--connections 16]
//        [--only protobuf,json] [--profile auto|on|off] [--service-env K=V]...
//
// Target: spans per CPU-second of the service ≥ the Collector's.
// Writes bench/results/otlp-spans-<date>.json and .md.
import path from 'node:path';
import { flagString } from './lib/args.ts';
import { otlpTracesTemplate } from './load/otlp-body.ts';
import { fmt, parseIngestCli } from './lib/ingest-cli.ts';
import type { IngestRow } from './lib/ingest-measure.ts';
import { profileRun } from './lib/ingest-profile.ts';
import { SHARED_NOTE, writeReport, type IngestReport, type TargetCheck } from './lib/ingest-report.ts';
import { freshDataDir, removeDataDir, ROOT, serviceCommand, setupInstance, startService, storedRows, telemetryCounters, revisionDuring, serviceRevision } from './lib/ingest-service.ts';
import { describeMachine } from './lib/machine.ts';
import { acceptedSpans, startCollector } from './lib/otelcol.ts';
import { otlpJsonRow, telemetrygenRow, type SpanRow } from './lib/otlp-measure.ts';
import { renderSpanReport } from './lib/otlp-report.ts';

const log = (m: string) => console.error(`[otlp-spans] ${m}`);
const cli = parseIngestCli('otlp-spans.ts', 16, log);
const only = new Set(flagString(cli.flags, 'only', 'protobuf,json').split(','));
const SPANS_PER_REQUEST = 100;
const OTLP_PATH = '/api/v1/otel/v1/traces';
const SERVICE = 'service (embedded)';
const COLLECTOR = 'Collector';

async function collectorRows(repeat: number): Promise<SpanRow[]> {
  const c = await startCollector(ROOT);
  const rcv = { target: COLLECTOR, party: { name: 'collector', pid: c.pid }, spans: () => acceptedSpans(c.metricsPort) };
  try {
    const rows: SpanRow[] = [];
    if (only.has('protobuf')) rows.push(await telemetrygenRow(rcv, { port: c.port, workers: 1, repeat }, cli.set));
    if (only.has('json')) rows.push(await otlpJsonRow(rcv, { url: `http://127.0.0.1:${c.port}/v1/traces`, spansPerRequest: SPANS_PER_REQUEST, connections: cli.set.connections, repeat }, cli.set));
    return rows;
  } finally {
    await c.stop();
  }
}

async function serviceRows(repeat: number, stored: Record<string, unknown>): Promise<SpanRow[]> {
  const dataDir = freshDataDir('otlp');
  const svc = await startService({ name: 'service', dataDir, env: cli.serviceEnv });
  const rows: SpanRow[] = [];
  try {
    try {
      const token = setupInstance(dataDir);
      const rcv = { target: SERVICE, party: { name: 'service', pid: svc.pid }, spans: async () => (await telemetryCounters(dataDir)).spans };
      if (only.has('protobuf')) {
        rows.push(await telemetrygenRow(rcv, { port: svc.port, urlPath: OTLP_PATH, headers: [`Authorization="Bearer ${token}"`], workers: 1, repeat }, cli.set));
      }
      if (only.has('json')) {
        const url = `http://127.0.0.1:${svc.port}${OTLP_PATH}`;
        rows.push(await otlpJsonRow(rcv, { url, headers: [`Authorization: Bearer ${token}`], spansPerRequest: SPANS_PER_REQUEST, connections: cli.set.connections, repeat }, cli.set));
      }
      const counters = await telemetryCounters(dataDir);
      stored[`run ${repeat}`] = { spans_accepted_total: counters.spans, rejected_exports: counters.rejectedExports };
    } finally {
      await svc.stop();
    }
    Object.assign(stored[`run ${repeat}`] ?? {}, storedRows(dataDir, ['raw_spans']));
    return rows;
  } finally {
    removeDataDir(dataDir);
  }
}

function checks(rows: SpanRow[]): TargetCheck[] {
  const out: TargetCheck[] = [];
  for (const feed of ['telemetrygen', 'bench/load']) {
    const svc = rows.filter((r) => r.target === SERVICE && r.feed.startsWith(feed));
    const col = rows.filter((r) => r.target === COLLECTOR && r.feed.startsWith(feed));
    if (!svc.length || !col.length) continue;
    const pairs = svc.map((s) => [s, col.find((c) => c.repeat === s.repeat)] as const).filter((p): p is readonly [SpanRow, SpanRow] => p[1] !== undefined);
    out.push({
      target: `spans per CPU-s, ${svc[0]!.feed}`,
      goal: "≥ the Collector's",
      measured: pairs.map(([s, c]) => `${fmt(s.spans_per_cpu_s)} vs ${fmt(c.spans_per_cpu_s)} (${fmt((s.spans_per_cpu_s / c.spans_per_cpu_s) * 100, 1)} %)`).join(' / '),
      met: pairs.every(([s, c]) => s.spans_per_cpu_s >= c.spans_per_cpu_s),
    });
  }
  return out;
}

async function main(): Promise<void> {
  const machine = describeMachine();
  const revision = serviceRevision();
  const rows: SpanRow[] = [];
  const stored: Record<string, unknown> = {};
  for (let r = 1; r <= cli.repeat; r++) {
    rows.push(...(await collectorRows(r)));
    rows.push(...(await serviceRows(r, stored)));
  }
  const report: IngestReport & { spans: SpanRow[] } = {
    title: 'Ingest: OTLP spans, service against the OpenTelemetry Collector',
    machine,
    shared_machine_note: SHARED_NOTE,
    command: cli.command,
    service_revision: revision,
    settings: { ...cli.set, rateConnections: undefined, repeat: cli.repeat, spansPerRequest: SPANS_PER_REQUEST },
    processes: {
      collector: '.cache/bin/otelcol-bench --config bench/otelcol/config.yaml (OTLP/HTTP receiver, nop exporter, v0.162.0)',
      service: serviceCommand({ env: cli.serviceEnv }) + '; then npm run setup -- … --service-token bench',
    },
    rows: [],
    spans: rows,
    checks: checks(rows),
    notes: [
      "telemetrygen's SDK exports one batch at a time and drops what its queue cannot hold, so its spans/s measures how fast each receiver answers one export after another; spans per CPU-s is the figure to compare.",
      'The Collector writes nowhere (nop exporter); the service answers only after the spans are committed to chDB. The comparison is therefore a receiver that drops against one that stores, which is what the target asks for.',
    ],
    stored,
  };
  const missed = report.checks.some((c) => c.met === false);
  if (cli.profile === 'on' || (cli.profile === 'auto' && missed)) {
    log('profile pass (node --cpu-prof): OTLP JSON, max');
    const p = await profileRun({
      name: cli.name,
      dir: cli.profileDir,
      env: cli.serviceEnv,
      set: cli.set,
      spec: async (svc) => {
        const token = setupInstance(svc.dataDir);
        return { target: `${SERVICE}, OTLP JSON, profiled`, url: `http://127.0.0.1:${svc.port}${OTLP_PATH}`, body: otlpTracesTemplate(SPANS_PER_REQUEST), headers: [`Authorization: Bearer ${token}`], itemsPerRequest: SPANS_PER_REQUEST };
      },
    });
    report.profiles = [{ title: 'embedded, OTLP/HTTP JSON, 100 spans/request', file: path.relative(ROOT, p.profile), command: p.command, markdown: p.markdown, row: p.row as IngestRow }];
  }
  report.service_revision = revisionDuring(revision);
  const base = writeReport(cli.outDir, cli.name, report, renderSpanReport);
  log(`wrote ${base}.json and .md`);
  console.log(renderSpanReport(report));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
