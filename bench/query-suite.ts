// The query and lag scenarios in order, as `npm run bench` runs them: generate the data set
// (10M check results; add --with-100m for the 100M one too), measure the dashboard questions on
// each, measure the ingest-to-queryable lag on the 10M one, then delete the data it generated
// (--keep-data keeps it). Each step is its own process, like the suites of bench/run-all.ts.
//
//   npx tsx bench/query-suite.ts [--with-100m] [--keep-data] [--kafka-brokers host:port]
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseFlags } from './lib/args.ts';
import { dataDirFor, ROOT } from './lib/bench-data.ts';

const flags = parseFlags(process.argv.slice(2));
const sizes = flags.has('with-100m') ? [10_000_000, 100_000_000] : [10_000_000];

function step(script: string, args: string[]): void {
  console.error(`[bench] ${script} ${args.join(' ')}`);
  const r = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(ROOT, 'bench', script), ...args], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const generated: string[] = [];
for (const checks of sizes) {
  const label = `checks-${checks / 1_000_000}m`;
  if (!existsSync(path.join(dataDirFor(label), 'bench-manifest.json'))) {
    step('bulk-generate.ts', ['--checks', String(checks), '--data-dir', label, '--fresh']);
    generated.push(label);
  }
  step('dashboard-queries.ts', ['--data-dir', label]);
}
step('lag.ts', ['--data-dir', 'checks-10m']);
const brokers = flags.get('kafka-brokers')?.at(-1);
if (brokers) step('lag.ts', ['--data-dir', 'checks-10m', '--kafka-brokers', brokers]);
if (!flags.has('keep-data')) for (const label of generated) rmSync(dataDirFor(label), { recursive: true, force: true });
