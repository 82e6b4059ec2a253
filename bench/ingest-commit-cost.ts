// Diagnostic behind the ingest scenarios: what one group-commit batch costs in chDB, by batch
// size, without HTTP. It loads batches through the same loader the embedded group commit uses
// (lib/event-log/analytics-loader.ts) into a fresh chDB folder and times each call, wall-clock
// and CPU of this process (chDB's threads included), and separately the event-level dedup
// SELECT that every batch starts with (lib/analytics/dedup.ts). Fitting time = a + b × events
// gives the fixed cost per batch (a) and the cost per event (b). Never run in CI.
//
//   npx tsx bench/ingest-commit-cost.ts [--sizes 1,10,100,1000,10000] [--batches 8] [--kinds signals,costs,spans]
//        [--grow 500000]
//
// After the sizes on a fresh table it adds --grow rows (10,000 per batch) and measures 100 and
// 1,000 per batch again: the cost of a batch as the table fills.
// Bounded: at most 10,000 events per batch, 20 batches per size, 2,000,000 rows grown per kind.
// Holds the bench lock throughout.
// Writes bench/results/ingest-commit-cost-<date>.json and .md.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { analyticsLoader } from '../lib/event-log/analytics-loader.ts';
import type { EventKind } from '../lib/event-log/types.ts';
import { existingIds } from '../lib/analytics/dedup.ts';
import { createAnalyticsStore } from '../lib/analytics/store.ts';
import { createLogger } from '../lib/log.ts';
import type { CostEventRecord, SignalRecord } from '../schemas/analytics-rows.ts';
import type { SpanEvent } from '../schemas/telemetry.ts';
import { flagNumber, flagString, parseFlags } from './lib/args.ts';
import { freshDataDir, removeDataDir, revisionDuring, ROOT, serviceRevision } from './lib/ingest-service.ts';
import { withBenchLock } from './lib/lock.ts';
import { describeMachine, machineMarkdown } from './lib/machine.ts';

const AGENT = 'b0000000-0000-4000-8000-000000000001';

function signal(): SignalRecord {
  return {
    signal_id: randomUUID(), agent_id: AGENT, agent_external_id: 'bench-agent-0', job_id: `job-${randomUUID()}`, overall_passed: true, latency_ms: 842,
    model: 'gpt-4o-mini', token_input: 1200, token_output: 350, received_at: new Date().toISOString(),
    checks: [
      { check_id: 'schema_valid', severity: 'HIGH', passed: true },
      { check_id: 'amount_matches', severity: 'HIGH', passed: true, expected: '1250.00', actual: '1250.00', delta: '0.00' },
      { check_id: 'tone', severity: 'LOW', passed: false },
    ],
  };
}

function cost(): CostEventRecord {
  const now = new Date().toISOString();
  return {
    event_id: randomUUID(), agent_id: AGENT, agent_external_id: 'bench-agent-0', department: 'Finance', job_id: `job-${randomUUID()}`, model: 'gpt-4o-mini', provider: 'openai',
    input_tokens: 1200, output_tokens: 350, cached_input_tokens: 0, cost_usd: 0.00039, usd_rate: 1, cost_display: 0.00039, display_currency: 'USD', priced: true,
    input_usd_per_mtok: 0.15, output_usd_per_mtok: 0.6, cached_input_usd_per_mtok: 0.075, source: 'signal', occurred_at: now, received_at: now,
  };
}

function span(): SpanEvent {
  const t = new Date().toISOString().replace('T', ' ').replace('Z', '000000');
  const hex = (n: number) => randomUUID().replace(/-/g, '').slice(0, n);
  return {
    trace_id: hex(32), span_id: hex(16), parent_span_id: '', name: 'llm.call', kind: 'CLIENT', start_time: t, end_time: t, duration_ms: 0.1, status_code: 'OK', status_message: '',
    service_name: 'bench-agent-0', scope_name: 'bench', scope_version: '', model: 'gpt-4o-mini', request_model: 'gpt-4o-mini', provider: 'openai', operation: 'chat',
    agent_name: '', agent_id: '', input_tokens: 1200, output_tokens: 350, cache_read_tokens: 0, cache_creation_tokens: 0,
    attributes: { 'gen_ai.request.model': 'gpt-4o-mini' }, resource_attributes: { 'service.name': 'bench-agent-0' },
    registry_agent_id: AGENT, agent_key: 'bench-agent-0', cost_usd: 0.00039, priced: true, received_at: new Date().toISOString(),
  };
}

const MAKERS: Record<EventKind, () => object> = { signals: signal, costs: cost, spans: span };

const TABLES: Record<EventKind, string> = { signals: 'raw_signals', costs: 'raw_cost_events', spans: 'raw_spans' };

interface SizeResult {
  kind: EventKind;
  phase: string;
  events_per_batch: number;
  batches: number;
  /** Median wall-clock ms of one loader call (dedup SELECT + inserts). */
  batch_ms_p50: number;
  /** CPU-ms of this process (all threads) per batch, mean. */
  batch_cpu_ms: number;
  cpu_us_per_event: number;
  /** Median ms of the dedup SELECT alone (signals and costs). */
  dedup_select_ms_p50: number | null;
  /** CPU-ms of this process per dedup SELECT, mean (ClickHouse reads in parallel threads). */
  dedup_select_cpu_ms: number | null;
  rows_in_table_before: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const r = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const sizes = flagString(flags, 'sizes', '1,10,100,1000,10000').split(',').map(Number);
  const batches = Math.min(20, flagNumber(flags, 'batches', 8));
  const kinds = flagString(flags, 'kinds', 'signals,costs,spans').split(',') as EventKind[];
  const grow = Math.min(2_000_000, flagNumber(flags, 'grow', 500_000));
  if (sizes.some((n) => !(n >= 1 && n <= 10_000))) throw new Error('sizes must be 1..10000');
  const machine = describeMachine();
  const started = serviceRevision();
  const dataDir = freshDataDir('commit-cost');
  const store = createAnalyticsStore({ dataDir, database: 'agent_ops', logger: createLogger('warn') });
  const results: SizeResult[] = [];
  try {
    await store.start();
    const load = analyticsLoader(store);
    // One size: `batches` loader calls of n events, each preceded by the dedup SELECT alone.
    const sweep = async (kind: EventKind, n: number, phase: string) => {
      const table = TABLES[kind];
      const [{ c }] = (await store.query<{ c: number }>(`SELECT count() AS c FROM ${table}`)) as [{ c: number }];
      const wall: number[] = [];
      const selects: number[] = [];
      let cpu = 0;
      let selectCpu = 0;
      for (let b = 0; b < batches; b++) {
        const events = Array.from({ length: n }, MAKERS[kind]);
        if (kind !== 'spans') {
          const ids = events.map((e) => (kind === 'signals' ? (e as SignalRecord).signal_id : (e as CostEventRecord).event_id));
          const c = cpuMs();
          const t = performance.now();
          await existingIds(store, table as 'raw_signals' | 'raw_cost_events', kind === 'signals' ? 'signal_id' : 'event_id', ids);
          selects.push(performance.now() - t);
          selectCpu += cpuMs() - c;
        }
        const c0 = cpuMs();
        const t0 = performance.now();
        await load(kind, events, `bench:${randomUUID()}`);
        wall.push(performance.now() - t0);
        cpu += cpuMs() - c0;
      }
      const res: SizeResult = {
        kind, phase, events_per_batch: n, batches, batch_ms_p50: r(median(wall)), batch_cpu_ms: r(cpu / batches), cpu_us_per_event: r((cpu * 1000) / (batches * n), 1),
        dedup_select_ms_p50: selects.length ? r(median(selects)) : null, dedup_select_cpu_ms: selects.length ? r(selectCpu / batches) : null, rows_in_table_before: c,
      };
      results.push(res);
      console.error(`[commit-cost] ${kind} ×${n} (${phase}, ${c} rows): ${res.batch_ms_p50} ms/batch, ${res.cpu_us_per_event} µs CPU/event, select ${res.dedup_select_ms_p50} ms`);
    };
    await withBenchLock('ingest-commit-cost', async () => {
      for (const kind of kinds) {
        for (const n of sizes) await sweep(kind, n, 'fresh table');
        // Then the table a service has after a while: the dedup SELECT reads every part's index.
        for (let added = 0; added < grow; added += 10_000) await load(kind, Array.from({ length: 10_000 }, MAKERS[kind]), `grow:${randomUUID()}`);
        if (grow > 0) for (const n of [1, 100, 1000]) await sweep(kind, n, `after +${grow.toLocaleString('en-US')} rows`);
      }
    });
  } finally {
    await store.stop();
    removeDataDir(dataDir);
  }
  const command = `npx tsx bench/ingest-commit-cost.ts ${process.argv.slice(2).join(' ')}`.trim();
  const revision = revisionDuring(started);
  const md = [
    `# Group-commit batch cost in chDB, ${machine.date.slice(0, 10)}`,
    '', '## Machine', machineMarkdown(machine), '- Shared with other engineers; ran holding /tmp/aor-bench.lock.', `- Service code: ${revision}`, '',
    '## Command', '```', command, '```', '',
    'One call of the embedded loader per batch (dedup SELECT, then the inserts with their materialized views), timed alone, nothing else running in this process. CPU is this process\'s, chDB threads included. The dedup SELECT column times the same query once more on its own, before the batch.', '',
    '| kind | table | events per batch | batches | ms per batch (p50) | CPU-ms per batch | CPU µs per event | dedup SELECT ms (p50) | dedup SELECT CPU-ms | rows in table before |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map((x) => `| ${x.kind} | ${x.phase} | ${x.events_per_batch} | ${x.batches} | ${x.batch_ms_p50} | ${x.batch_cpu_ms} | ${x.cpu_us_per_event} | ${x.dedup_select_ms_p50 ?? '–'} | ${x.dedup_select_cpu_ms ?? '–'} | ${x.rows_in_table_before.toLocaleString('en-US')} |`),
    '',
  ].join('\n');
  const outDir = path.join(ROOT, 'bench/results');
  mkdirSync(outDir, { recursive: true });
  const base = path.join(outDir, `ingest-commit-cost-${machine.date.slice(0, 10)}`);
  writeFileSync(`${base}.json`, JSON.stringify({ machine, command, service_revision: revision, results }, null, 2) + '\n');
  writeFileSync(`${base}.md`, md);
  console.log(md);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
