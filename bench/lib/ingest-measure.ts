// One measured row of an ingest benchmark: a load (bench/load) against a target whose processes
// ("parties": the service, a workers process, a broker, a Collector) are watched for CPU,
// memory and, for the first one, CPU per thread group. Every row holds the machine-wide bench
// lock (bench/lib/lock.ts) from before its quiet-wait until its load ends, so no other
// engineer's benchmark measures at the same time.
import { runLoad, type LoadResult } from '../load/run.ts';
import { withBenchLock } from './lock.ts';
import { awaitQuiet, CpuWindow } from './proc.ts';
import { MemorySampler, ThreadWindow, type MemoryFigures } from './sampling.ts';

export interface Party {
  name: string;
  pid: number;
}

export interface RowSpec {
  /** What is measured, e.g. "service (embedded)", "bare-uws". */
  target: string;
  /** "max", "50% of max", ... */
  label: string;
  repeat: number;
  url: string;
  body: string;
  headers?: string[];
  mode: 'max' | 'rate';
  /** Requests per second (rate mode). */
  rate?: number;
  /** Items (signals, cost events, spans) per request, for items/s. */
  itemsPerRequest: number;
  connections?: number;
}

export interface RowSettings {
  connections: number;
  /** Connections of fixed-rate rows: enough that the rate never waits for a free one even
   * when acknowledgements take hundreds of ms (a fleet of agents is not a fixed pool). */
  rateConnections: number;
  processes: number;
  warmupS: number;
  durationS: number;
  quietCores: number;
  quietWaitS: number;
  log: (m: string) => void;
}

export interface IngestRow {
  target: string;
  label: string;
  repeat: number;
  items_per_request: number;
  load: LoadResult;
  /** Items in successful (2xx) answers to requests started in the window, per second. */
  items_per_s: number;
  /** CPU of each party in the window, in cores. */
  cpu_cores: Record<string, number>;
  /** Items divided by the CPU-seconds of all parties: the figure that survives a shared machine. */
  items_per_cpu_s: number;
  /** The first party's CPU by thread group, in cores ("main" is the JavaScript thread, what --cpu-prof sees). */
  threads: Record<string, number>;
  memory: Record<string, MemoryFigures>;
  machine_busy_cores: number;
  /** Busy cores that were neither a party's nor the generator's: other people's work. */
  others_cores: number;
  busy_before_cores: number;
  lock_wait_s: number;
  /** Extra counters a scenario adds (e.g. spans the service counted). */
  extra?: Record<string, number>;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

export function successes(load: LoadResult): number {
  return Object.entries(load.statuses).reduce((n, [k, v]) => (k.startsWith('2') ? n + v : n), 0);
}

export async function measureRow(parties: Party[], spec: RowSpec, set: RowSettings): Promise<IngestRow> {
  const t0 = performance.now();
  return withBenchLock(`${spec.target} ${spec.label}`, async () => {
    const lockWaitS = (performance.now() - t0) / 1000;
    const busyBefore = await awaitQuiet(set.quietCores, set.quietWaitS, set.log);
    set.log(`${spec.target}, ${spec.label}, run ${spec.repeat}${spec.rate ? ` (${Math.round(spec.rate)} req/s)` : ''}`);
    const cpu = new CpuWindow(parties.map((p) => p.pid));
    const threads = new ThreadWindow(parties[0]!.pid);
    const memory = new MemorySampler(Object.fromEntries(parties.map((p) => [p.name, p.pid])));
    let threadCores: Record<string, number> = {};
    let mem: Record<string, MemoryFigures> = {};
    const load = await runLoad(
      {
        url: spec.url,
        body: spec.body,
        headers: spec.headers,
        mode: spec.mode,
        rate: spec.rate,
        connections: spec.connections ?? (spec.mode === 'rate' ? set.rateConnections : set.connections),
        processes: set.processes,
        warmupS: set.warmupS,
        durationS: set.durationS,
        timeoutMs: 10_000,
      },
      {
        onWindowStart: () => (cpu.start(), threads.start(), memory.start()),
        onWindowEnd: () => (cpu.end(), (threadCores = threads.end()), (mem = memory.stop())),
      },
    );
    const cpuCores: Record<string, number> = {};
    let cpuS = 0;
    for (const p of parties) {
      cpuCores[p.name] = r2(cpu.cpuS(p.pid) / cpu.wallS);
      cpuS += cpu.cpuS(p.pid);
    }
    const items = successes(load) * spec.itemsPerRequest;
    return {
      target: spec.target,
      label: spec.label,
      repeat: spec.repeat,
      items_per_request: spec.itemsPerRequest,
      load,
      items_per_s: Math.round(items / set.durationS),
      cpu_cores: cpuCores,
      items_per_cpu_s: cpuS > 0 ? Math.round(items / cpuS) : 0,
      threads: threadCores,
      memory: mem,
      machine_busy_cores: r2(cpu.machineBusyCores),
      others_cores: r2(Math.max(0, cpu.machineBusyCores - cpuS / cpu.wallS - load.generator_cpu_cores)),
      busy_before_cores: busyBefore,
      lock_wait_s: r2(lockWaitS),
    };
  }, set.log);
}

/** Max throughput, then fixed rate at each share of it (latency under a load that is met). */
export async function maxThenRates(parties: Party[], spec: Omit<RowSpec, 'label' | 'mode' | 'rate'>, set: RowSettings, shares = [0.5, 0.8]): Promise<IngestRow[]> {
  const max = await measureRow(parties, { ...spec, label: 'max', mode: 'max' }, set);
  const rows = [max];
  const maxRps = successes(max.load) / set.durationS;
  for (const share of shares) {
    if (maxRps <= 0) break;
    rows.push(await measureRow(parties, { ...spec, label: `${share * 100}% of max`, mode: 'rate', rate: Math.max(1, Math.round(maxRps * share)) }, set));
  }
  return rows;
}
