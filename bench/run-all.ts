// `npm run bench`: every benchmark suite in turn, each in its own process so one suite's
// servers and heap cannot colour the next one's figures. Never run in CI. Arguments are passed
// to every suite (e.g. `npm run bench -- --duration 5`).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Scenarios against the service itself join this list once the service exists (issue 7).
const SUITES = ['baselines.ts', 'ingest-signals.ts', 'ingest-batched.ts', 'otlp-spans.ts', 'query-suite.ts'];
// ingest-signals.ts, ingest-batched.ts, otlp-spans.ts: ingest throughput, ack latency, CPU and
// memory of the service against bare uWS and the Collector (about 5, 4 and 3 min at defaults).
// query-suite.ts: dashboard queries on 10M check results and ingest-to-queryable lag (it
// generates its data under .cache/bench-data and deletes it after); see docs/benchmarks.md.

const args = process.argv.slice(2);
for (const suite of SUITES) {
  const file = fileURLToPath(new URL(suite, import.meta.url));
  console.error(`[bench] ${suite} ${args.join(' ')}`);
  const r = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), file, ...args], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
