// Scenario 2 of issue 7: batched quality signals (POST /api/v1/quality/batch, JSON array and
// NDJSON, 100 and 1,000 per request) and cost events, single (POST /api/v1/costs/events) and
// batched (POST /api/v1/costs/events/batch), against the service in embedded mode. A batch is
// answered once all its events are committed to chDB, so items/s is end to end. Never run in CI.
//
//   npx tsx bench/ingest-batched.ts [--repeat 2] [--duration 10] [--warmup 2] [--connections 32]
//        [--single-connections 1000] [--only signals,costs] [--profile auto|on|off] [--service-env K=V]...
//
// Target: 100,000 signals/s batched. Writes bench/results/ingest-batched-<date>.json and .md.
import path from 'node:path';
import { flagNumber, flagString } from './lib/args.ts';
import { maxThenRates, measureRow, type IngestRow, type RowSpec } from './lib/ingest-measure.ts';
import { fmt, parseIngestCli } from './lib/ingest-cli.ts';
import { profileRun } from './lib/ingest-profile.ts';
import { all, renderIngestReport, SHARED_NOTE, writeReport, type IngestReport, type TargetCheck } from './lib/ingest-report.ts';
import { freshDataDir, primeAgents, removeDataDir, ROOT, serviceCommand, startService, storedRows, revisionDuring, serviceRevision } from './lib/ingest-service.ts';
import { describeMachine } from './lib/machine.ts';

const log = (m: string) => console.error(`[ingest-batched] ${m}`);
const cli = parseIngestCli('ingest-batched.ts', 32, log);
const singleConnections = flagNumber(cli.flags, 'single-connections', 1000);
const singleRateConnections = Math.min(2000, singleConnections * 2);
const only = new Set(flagString(cli.flags, 'only', 'signals,costs').split(','));
const TARGET = 'service (embedded)';

const signalItem = (i: number) =>
  `{"agent_id":"bench-agent-{{worker}}","job_id":"job-{{seq}}-${i}","overall_passed":true,"token_input":1200,"token_output":350,"model":"gpt-4o-mini","latency_ms":842,` +
  `"checks":[{"check_id":"schema_valid","severity":"HIGH","passed":true},{"check_id":"amount_matches","severity":"HIGH","passed":true,"expected":"1250.00","actual":"1250.00","delta":"0.00"},{"check_id":"tone","severity":"LOW","passed":false}]}`;
const costItem = (i: number) =>
  `{"agent_id":"bench-agent-{{worker}}","job_id":"job-{{seq}}-${i}","model":"gpt-4o-mini","provider":"openai","input_tokens":1200,"output_tokens":350}`;

type Format = 'json' | 'ndjson';
function batchBody(item: (i: number) => string, n: number, format: Format): { body: string; headers: string[] } {
  const items = Array.from({ length: n }, (_, i) => item(i));
  return format === 'json'
    ? { body: `[${items.join(',')}]`, headers: [] }
    : { body: items.join('\n') + '\n', headers: ['Content-Type: application/x-ndjson'] };
}

interface Case {
  label: string;
  path: string;
  items: number;
  body: string;
  headers: string[];
  connections: number;
  /** Also fixed rate at 50 % of max (latency of single requests). */
  rates?: boolean;
}

function cases(): Case[] {
  const out: Case[] = [];
  if (only.has('signals')) {
    for (const [n, format] of [[100, 'json'], [1000, 'json'], [1000, 'ndjson']] as Array<[number, Format]>) {
      out.push({ label: `signals, ${format === 'json' ? 'JSON array' : 'NDJSON'}, ${n}/request`, path: '/api/v1/quality/batch', items: n, ...batchBody(signalItem, n, format), connections: cli.set.connections });
    }
  }
  if (only.has('costs')) {
    out.push({ label: 'cost events, single', path: '/api/v1/costs/events', items: 1, body: costItem(0), headers: [], connections: singleConnections, rates: true });
    for (const format of ['json', 'ndjson'] as Format[]) {
      out.push({ label: `cost events, ${format === 'json' ? 'JSON array' : 'NDJSON'}, 1000/request`, path: '/api/v1/costs/events/batch', items: 1000, ...batchBody(costItem, 1000, format), connections: cli.set.connections });
    }
  }
  return out;
}

/** One fresh service per case, so no case pays for the chDB merges of the one before. */
async function runCase(c: Case, repeat: number, stored: Record<string, unknown>): Promise<IngestRow[]> {
  const dataDir = freshDataDir('batched');
  const svc = await startService({ name: 'service', dataDir, env: cli.serviceEnv });
  try {
    let rows: IngestRow[];
    try {
      await primeAgents(svc.port, cli.set.processes);
      const parties = [{ name: 'service', pid: svc.pid }];
      const spec: Omit<RowSpec, 'label' | 'mode' | 'rate'> = {
        target: `${TARGET}: ${c.label}`,
        repeat,
        url: `http://127.0.0.1:${svc.port}${c.path}`,
        body: c.body,
        headers: c.headers,
        itemsPerRequest: c.items,
      };
      rows = c.rates
        ? await maxThenRates(parties, spec, { ...cli.set, connections: c.connections, rateConnections: singleRateConnections }, [0.5])
        : [await measureRow(parties, { ...spec, label: 'max', mode: 'max', connections: c.connections }, cli.set)];
    } finally {
      await svc.stop();
    }
    const acked = rows.reduce((n, r) => n + r.items_per_s * cli.set.durationS, 0);
    stored[`${c.label}, run ${repeat}`] = { acked_in_windows: acked, ...storedRows(dataDir, ['raw_signals', 'raw_cost_events']) };
    return rows;
  } finally {
    removeDataDir(dataDir);
  }
}

function checks(rows: IngestRow[]): TargetCheck[] {
  const out: TargetCheck[] = [];
  for (const label of ['signals, JSON array, 1000/request', 'signals, NDJSON, 1000/request', 'signals, JSON array, 100/request']) {
    const rs = all(rows, `${TARGET}: ${label}`, 'max');
    if (!rs.length) continue;
    out.push({ target: `batched ${label}`, goal: '≥ 100,000 signals/s', measured: rs.map((r) => fmt(r.items_per_s)).join(' / '), met: rs.every((r) => r.items_per_s >= 100_000) });
  }
  return out;
}

async function main(): Promise<void> {
  const machine = describeMachine();
  const revision = serviceRevision();
  const rows: IngestRow[] = [];
  const stored: Record<string, unknown> = {};
  for (let r = 1; r <= cli.repeat; r++) for (const c of cases()) rows.push(...(await runCase(c, r, stored)));
  const report: IngestReport = {
    title: 'Ingest: batched signals and cost events',
    machine,
    shared_machine_note: SHARED_NOTE,
    command: cli.command,
    service_revision: revision,
    settings: { ...cli.set, rateConnections: undefined, singleConnections, singleRateConnections, repeat: cli.repeat },
    processes: { service: serviceCommand({ env: cli.serviceEnv }) },
    rows,
    checks: checks(rows),
    notes: [
      'One fresh service (new DATA_DIR) per case and run, so no case pays for the chDB merges of the one before.',
      `Batch rows use ${cli.set.connections} connections (a 1,000-signal body is about 480 KB); single cost events use ${singleConnections}, their 50 % row ${singleRateConnections}.`,
      'Every batch signal carries tokens and a model, so each also stores a cost event. A batch answers 200 when every item was accepted and 207 when some were not; items/s counts 200s only (there were no 207s unless "not ok" says so).',
    ],
    stored,
  };
  const missed = report.checks.some((c) => c.met === false);
  if (cli.profile === 'on' || (cli.profile === 'auto' && missed)) {
    log('profile pass (node --cpu-prof): signals, JSON array, 1000/request, max');
    const { body } = batchBody(signalItem, 1000, 'json');
    const p = await profileRun({
      name: cli.name,
      dir: cli.profileDir,
      env: cli.serviceEnv,
      set: cli.set,
      spec: async (svc) => {
        await primeAgents(svc.port, cli.set.processes);
        return { target: `${TARGET}: signals, JSON array, 1000/request, profiled`, url: `http://127.0.0.1:${svc.port}/api/v1/quality/batch`, body, itemsPerRequest: 1000 };
      },
    });
    report.profiles = [{ title: 'embedded, signals, JSON array, 1000/request', file: path.relative(ROOT, p.profile), command: p.command, markdown: p.markdown, row: p.row }];
  }
  report.service_revision = revisionDuring(revision);
  const base = writeReport(cli.outDir, cli.name, report);
  log(`wrote ${base}.json and .md`);
  console.log(renderIngestReport(report));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
