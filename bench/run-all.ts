// `npm run bench`: every benchmark suite in turn, each in its own process so one suite's
// servers and heap cannot colour the next one's figures. Never run in CI. Arguments are passed
// to every suite (e.g. `npm run bench -- --duration 5`).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Scenarios against the service itself join this list once the service exists (issue 7).
const SUITES = ['baselines.ts'];

const args = process.argv.slice(2);
for (const suite of SUITES) {
  const file = fileURLToPath(new URL(suite, import.meta.url));
  console.error(`[bench] ${suite} ${args.join(' ')}`);
  const r = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), file, ...args], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
