// Options every ingest benchmark takes, parsed once:
//   --duration 10 --warmup 2      measured and warm-up seconds per row (together ≤ 20)
//   --connections N               keep-alive connections of max rows (each scenario has its own default)
//   --rate-connections N          connections of fixed-rate rows (default: twice --connections, at most 2000)
//   --processes 1                 load processes
//   --repeat 2                    runs of the whole series, to show run-to-run noise
//   --quiet-cores 0.5 --quiet-wait 20   wait for a quieter machine before each row
//   --profile auto|on|off         profile pass with --cpu-prof (auto: when a target is missed)
//   --service-env K=V             extra service environment, repeatable (e.g. INGEST_BATCH_INTERVAL_MS=5)
//   --out-dir bench/results
//   --tag NAME                    appended to the results file name (experiments: ingest-signals-NAME-<date>)
import path from 'node:path';
import { flagNumber, flagString, parseFlags } from './args.ts';
import type { RowSettings } from './ingest-measure.ts';
import { ROOT } from './ingest-service.ts';

export interface IngestCli {
  argv: string[];
  command: string;
  set: RowSettings;
  repeat: number;
  profile: 'auto' | 'on' | 'off';
  serviceEnv: Record<string, string>;
  outDir: string;
  profileDir: string;
  /** Results file base name: the scenario, plus --tag when given. */
  name: string;
  flags: Map<string, string[]>;
}

export function parseIngestCli(script: string, defaultConnections: number, log: (m: string) => void): IngestCli {
  const argv = process.argv.slice(2);
  const flags = parseFlags(argv);
  const connections = flagNumber(flags, 'connections', defaultConnections);
  const set: RowSettings = {
    connections,
    rateConnections: flagNumber(flags, 'rate-connections', Math.min(2000, connections * 2)),
    processes: flagNumber(flags, 'processes', 1),
    warmupS: flagNumber(flags, 'warmup', 2),
    durationS: flagNumber(flags, 'duration', 10),
    quietCores: flagNumber(flags, 'quiet-cores', 0.5),
    quietWaitS: flagNumber(flags, 'quiet-wait', 20),
    log,
  };
  if (set.durationS + set.warmupS > 20) throw new Error('keep warm-up + duration ≤ 20 s: the machine is shared');
  const repeat = flagNumber(flags, 'repeat', 2);
  if (!(repeat >= 1 && repeat <= 5)) throw new Error('--repeat must be 1 to 5');
  const profile = flagString(flags, 'profile', 'auto');
  if (profile !== 'auto' && profile !== 'on' && profile !== 'off') throw new Error('--profile is auto, on or off');
  const serviceEnv: Record<string, string> = { ACCESS_LOG: 'off' };
  for (const kv of flags.get('service-env') ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0 || !/^[A-Z_][A-Z0-9_]*$/.test(kv.slice(0, eq))) throw new Error(`--service-env wants NAME=value, got ${kv}`);
    serviceEnv[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const outDir = path.resolve(flagString(flags, 'out-dir', path.join(ROOT, 'bench/results')));
  return {
    argv,
    command: `npx tsx bench/${script} ${argv.join(' ')}`.trim(),
    set,
    repeat,
    profile,
    serviceEnv,
    outDir,
    profileDir: path.join(outDir, 'profiles'),
    name: [script.replace(/\.ts$/, ''), flagString(flags, 'tag', '')].filter(Boolean).join('-'),
    flags,
  };
}

export const fmt = (x: number, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d });
