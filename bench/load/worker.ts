// One load process (forked by run.ts). It gets its share of connections and of the target rate
// over IPC, runs warm-up + measurement, and sends back a histogram and counters.
//
// Fixed-rate mode is coordinated-omission aware, as wrk2 is: request i has an intended start
// t0 + i/rate, and its latency is measured from that intended start, not from when a free
// connection finally sent it. A server that stalls therefore shows the stall in every request
// that should have been sent meanwhile, instead of in just one.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Connection, type Outcome } from './connection.ts';
import { Histogram, type SerializedHistogram } from './histogram.ts';
import { compileRequest, hostPort, type RequestFactory, type RequestSpec } from './request.ts';

export interface WorkerConfig {
  worker: number;
  spec: RequestSpec;
  mode: 'max' | 'rate';
  /** Requests per second for this process (rate mode). */
  rate: number;
  connections: number;
  warmupS: number;
  durationS: number;
  timeoutMs: number;
}

export interface WorkerResult {
  worker: number;
  hist: SerializedHistogram;
  /** Rate mode: latency from the actual send (not CO-corrected), to show the generator's own delay. */
  serviceHist?: SerializedHistogram;
  /** Answers in the measured window by HTTP status. */
  statuses: Record<string, number>;
  errors: Record<string, number>;
  /** Rate mode: requests due in the window that never got a connection before the end. */
  unsent: number;
  windowS: number;
  /** CPU this process used during the measured window, seconds. */
  cpuS: number;
}

export type WorkerMessage =
  | { type: 'window-start' }
  | { type: 'window-end' }
  | { type: 'result'; result: WorkerResult };

// A failed connect is retried after this pause so a dead server is not hammered in a busy loop.
const RECONNECT_PAUSE_MS = 20;
// Rate mode keeps at most this many requests waiting for a connection; past it the run is
// hopeless as a latency figure anyway, and memory stays bounded.
const MAX_BACKLOG = 1_000_000;

export function runWorker(cfg: WorkerConfig, notify: (m: WorkerMessage) => void): Promise<WorkerResult> {
  return new LoadProcess(cfg, notify).run();
}

class LoadProcess {
  private readonly build: RequestFactory;
  private readonly conns: Connection[];
  private readonly hist = new Histogram();
  private readonly serviceHist = new Histogram();
  private readonly statuses: Record<string, number> = {};
  private readonly errors: Record<string, number> = {};
  private readonly t0 = performance.now();
  private readonly tMeasure: number;
  private readonly tEnd: number;
  private n = 0;
  private cpuAtStart: NodeJS.CpuUsage | undefined;
  private cpuS = 0;
  private windowStarted = false;
  private windowEnded = false;
  // Rate mode: ring buffer of intended start times waiting for a free connection.
  private readonly cap: number;
  private readonly backlog: Float64Array;
  private head = 0;
  private tail = 0;
  private issued = 0;
  private unsent = 0;
  private stopped = false;
  private readonly perMs: number;
  private readonly idle: Connection[];

  constructor(
    private readonly cfg: WorkerConfig,
    private readonly notify: (m: WorkerMessage) => void,
  ) {
    this.build = compileRequest(cfg.spec, cfg.worker);
    this.conns = Array.from({ length: cfg.connections }, () => new Connection(hostPort(cfg.spec.url)));
    this.tMeasure = this.t0 + cfg.warmupS * 1000;
    this.tEnd = this.tMeasure + cfg.durationS * 1000;
    this.cap = cfg.mode === 'rate' ? Math.min(MAX_BACKLOG, Math.ceil(cfg.rate * (cfg.warmupS + cfg.durationS)) + 1) : 1;
    this.backlog = new Float64Array(this.cap);
    this.perMs = cfg.rate / 1000;
    this.idle = cfg.mode === 'rate' ? [...this.conns] : [];
  }

  async run(): Promise<WorkerResult> {
    const { cfg } = this;
    const sweep = setInterval(() => {
      const cutoff = performance.now() - cfg.timeoutMs;
      for (const c of this.conns) c.expireBefore(cutoff);
    }, Math.min(250, cfg.timeoutMs));
    await (cfg.mode === 'max' ? this.runMax() : this.runRate());
    // Requests still queued at the end were due inside the window but never sent.
    for (let i = this.head; i < this.tail; i++) if (this.backlog[i % this.cap]! >= this.tMeasure) this.unsent++;
    this.head = this.tail;
    await drain(this.conns, cfg.timeoutMs);
    this.markWindow(Math.max(performance.now(), this.tEnd));
    clearInterval(sweep);
    for (const c of this.conns) c.close();
    return {
      worker: cfg.worker,
      hist: this.hist.serialize(),
      serviceHist: cfg.mode === 'rate' ? this.serviceHist.serialize() : undefined,
      statuses: this.statuses,
      errors: this.errors,
      unsent: this.unsent,
      windowS: cfg.durationS,
      cpuS: this.cpuS,
    };
  }

  private runMax(): Promise<void> {
    return new Promise((resolve) => {
      for (const c of this.conns) this.fire(c, undefined);
      const poll = setInterval(() => {
        const now = performance.now();
        this.markWindow(now);
        if (now >= this.tEnd) {
          clearInterval(poll);
          resolve();
        }
      }, 50);
    });
  }

  private runRate(): Promise<void> {
    return new Promise((resolve) => {
      const tick = () => {
        const now = performance.now();
        this.markWindow(now);
        this.pump(now);
        if (now < this.tEnd) return void setTimeout(tick, 1);
        this.stopped = true;
        resolve();
      };
      tick();
    });
  }

  // Rate mode: queue what is due by `now`, then hand it to idle connections. Called from the
  // 1 ms timer and from every answer, so at high rates requests leave within microseconds of
  // their intended time instead of waiting for the next timer tick.
  private pump(now: number): void {
    if (this.stopped) return;
    const due = Math.floor((Math.min(now, this.tEnd) - this.t0) * this.perMs);
    for (; this.issued < due; this.issued++) {
      if (this.tail - this.head < this.cap) this.backlog[this.tail++ % this.cap] = this.t0 + this.issued / this.perMs;
      else this.unsent++;
    }
    while (this.head < this.tail && this.idle.length > 0) this.fire(this.idle.pop()!, this.backlog[this.head++ % this.cap]);
  }

  private fire(c: Connection, intended: number | undefined): void {
    const sentAt = performance.now();
    const start = intended ?? sentAt;
    c.send(this.build(this.n++), (o) => {
      const now = performance.now();
      this.account(o, start, sentAt, now);
      this.markWindow(now);
      if (o.error === 'connect') setTimeout(() => this.next(c), RECONNECT_PAUSE_MS);
      else this.next(c);
    });
  }

  private next(c: Connection): void {
    if (this.cfg.mode === 'max') {
      if (performance.now() < this.tEnd) this.fire(c, undefined);
      return;
    }
    this.idle.push(c);
    this.pump(performance.now());
  }

  private account(o: Outcome, start: number, sentAt: number, now: number): void {
    if (start < this.tMeasure || start >= this.tEnd) return; // warm-up, or started after the end
    if (o.error) {
      this.errors[o.error] = (this.errors[o.error] ?? 0) + 1;
      return;
    }
    this.statuses[o.status] = (this.statuses[o.status] ?? 0) + 1;
    this.hist.record((now - start) * 1000);
    if (this.cfg.mode === 'rate') this.serviceHist.record((now - sentAt) * 1000);
  }

  private markWindow(now: number): void {
    if (!this.windowStarted && now >= this.tMeasure) {
      this.windowStarted = true;
      this.cpuAtStart = process.cpuUsage();
      this.notify({ type: 'window-start' });
    }
    if (this.windowStarted && !this.windowEnded && now >= this.tEnd) {
      this.windowEnded = true;
      const d = process.cpuUsage(this.cpuAtStart);
      this.cpuS = (d.user + d.system) / 1e6;
      this.notify({ type: 'window-end' });
    }
  }
}

/** Waits for in-flight requests, at most `timeoutMs` (they time out on their own by then). */
async function drain(conns: Connection[], timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs + 100;
  while (conns.some((c) => c.busy) && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 5));
  }
}

// Entry point when forked by run.ts: one config in, one result out, then exit.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', (cfg: WorkerConfig) => {
    const send = (m: WorkerMessage) => process.send!(m);
    runWorker(cfg, send).then(
      (result) => process.send!({ type: 'result', result } satisfies WorkerMessage, () => process.exit(0)),
      (err: unknown) => {
        console.error('load worker failed:', err);
        process.exit(1);
      },
    );
  });
}
