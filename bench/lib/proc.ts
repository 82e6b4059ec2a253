// CPU accounting from /proc (Linux only): the CPU-seconds of one process and of the whole
// machine, sampled around a measured window. "Requests per CPU-second" is the figure that
// stays comparable when the machine is shared, where wall-clock throughput is not.
import { readFileSync } from 'node:fs';

// USER_HZ: 100 on every Linux build we run on (x86-64 and arm64 fix it at 100).
const TICKS_PER_S = 100;

/** User + system CPU-seconds used so far by process `pid` (its threads included). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may itself hold spaces.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICKS_PER_S;
}

export interface SystemCpu {
  busyS: number;
  totalS: number;
}

/** Machine-wide CPU-seconds since boot, busy (all but idle and iowait) and total. */
export function systemCpu(): SystemCpu {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  const idle = v[3]! + v[4]!;
  return { busyS: (total - idle) / TICKS_PER_S, totalS: total / TICKS_PER_S };
}

/** Samples CPU of some processes and of the machine between start() and end(). */
export class CpuWindow {
  private pids: number[];
  private startProc = new Map<number, number>();
  private startSys: SystemCpu | undefined;
  private t0 = 0;
  private result: { wallS: number; procS: Map<number, number>; busyCores: number } | undefined;

  constructor(pids: number[]) {
    this.pids = pids;
  }

  start(): void {
    this.t0 = performance.now();
    this.startSys = systemCpu();
    for (const p of this.pids) this.startProc.set(p, processCpuSeconds(p));
  }

  end(): void {
    const wallS = (performance.now() - this.t0) / 1000;
    const sys = systemCpu();
    const procS = new Map<number, number>();
    for (const p of this.pids) procS.set(p, processCpuSeconds(p) - (this.startProc.get(p) ?? 0));
    const busyCores = (sys.busyS - this.startSys!.busyS) / wallS;
    this.result = { wallS, procS, busyCores };
  }

  /** CPU-seconds of `pid` in the window (0 if the window never closed). */
  cpuS(pid: number): number {
    return this.result?.procS.get(pid) ?? 0;
  }

  get wallS(): number {
    return this.result?.wallS ?? 0;
  }

  /** Average number of busy cores machine-wide in the window, everyone's work included. */
  get machineBusyCores(): number {
    return this.result?.busyCores ?? 0;
  }
}

/** Machine-wide busy cores over `ms` of sampling. */
export async function busyCores(ms = 1000): Promise<number> {
  const a = systemCpu();
  const t = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  return (systemCpu().busyS - a.busyS) / ((performance.now() - t) / 1000);
}

/** Waits (at most `maxWaitS`) until the machine is quieter than `threshold` busy cores, so a
 * measurement does not start in the middle of someone else's test run. Returns the last
 * reading, which goes into the results. */
export async function awaitQuiet(threshold: number, maxWaitS: number, log: (m: string) => void): Promise<number> {
  const until = performance.now() + maxWaitS * 1000;
  let busy = await busyCores();
  while (busy > threshold && performance.now() < until) {
    log(`machine busy (${busy.toFixed(2)} cores used by others); waiting for < ${threshold}`);
    await new Promise((r) => setTimeout(r, 2000));
    busy = await busyCores();
  }
  return Math.round(busy * 100) / 100;
}
