// Per-process memory and per-thread CPU over a measured window (Linux /proc only).
//
// Memory: VmRSS sampled every 250 ms gives the peak under load; VmHWM (the kernel's own
// high-water mark) is read at the end and also covers start-up and earlier rows.
// Threads: the service runs JavaScript on its main thread while chDB works on libuv pool
// threads and its own ClickHouse threads (merges, query pools). A --cpu-prof profile only sees
// the main thread, so this split says how much of the CPU a JavaScript profile can explain.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_S = 100;

export interface MemoryFigures {
  /** Highest VmRSS seen while sampling, MiB. */
  peak_rss_mib: number;
  /** VmHWM at the end of the window: peak RSS since the process started, MiB. */
  hwm_mib: number;
}

function statusKib(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0; // the process is gone
  }
}

const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10;

/** Samples VmRSS of named processes until stop(). */
export class MemorySampler {
  private peak = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly pids: Record<string, number>, private readonly intervalMs = 250) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  stop(): Record<string, MemoryFigures> {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    const out: Record<string, MemoryFigures> = {};
    for (const [name, pid] of Object.entries(this.pids)) {
      out[name] = { peak_rss_mib: mib(this.peak.get(name) ?? 0), hwm_mib: mib(statusKib(pid, 'VmHWM')) };
    }
    return out;
  }

  private sample(): void {
    for (const [name, pid] of Object.entries(this.pids)) {
      this.peak.set(name, Math.max(this.peak.get(name) ?? 0, statusKib(pid, 'VmRSS')));
    }
  }
}

/** CPU-seconds per thread group of one process: "main" (tid = pid: the JavaScript thread of a Node process), else the thread's name. */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const s = (Number(f[11]) + Number(f[12])) / TICKS_PER_S;
      out.set(name, (out.get(name) ?? 0) + s);
    } catch {
      // the thread ended between readdir and read
    }
  }
  return out;
}

/** Thread-group CPU of one process between start() and end(), in cores. */
export class ThreadWindow {
  private before = new Map<string, number>();
  private t0 = 0;

  constructor(private readonly pid: number) {}

  start(): void {
    this.t0 = performance.now();
    this.before = threadCpuSeconds(this.pid);
  }

  /** Cores per thread group, largest first; groups under 0.01 cores are left out. */
  end(): Record<string, number> {
    const wallS = (performance.now() - this.t0) / 1000;
    const rows: Array<[string, number]> = [];
    for (const [name, s] of threadCpuSeconds(this.pid)) {
      const cores = (s - (this.before.get(name) ?? 0)) / wallS;
      if (cores >= 0.01) rows.push([name, Math.round(cores * 100) / 100]);
    }
    return Object.fromEntries(rows.sort((a, b) => b[1] - a[1]));
  }
}
