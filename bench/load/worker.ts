// One load process (forked by run.ts). It gets its share of connections and of the target rate
// over IPC, runs warm-up + measurement, and sends back a histogram and counters.
//
// Fixed-rate mode is coordinated-omission aware, as wrk2 is: request i has an intended start
// t0 + i/rate, and its latency is measured from that intended start, not from when a free
// connection finally sent it. A server that stalls therefore shows the stall in every request
// that should have been sent meanwhile, instead of in just one.
import { performance } from 'node:perf_hooks';
import { Connection, type Outcome } from './connection.ts';
import { Histogram, type SerializedHistogram } from './histogram.ts';
import { compileRequest, hostPort, type RequestSpec } from './request.ts';

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

export async function runWorker(cfg: WorkerConfig, notify: (m: WorkerMessage) => void): Promise<WorkerResult> {
  const build = compileRequest(cfg.spec, cfg.worker);
  const conns = Array.from({ length: cfg.connections }, () => new Connection(hostPort(cfg.spec.url)));
  const sweep = setInterval(() => {
    const cutoff = performance.now() - cfg.timeoutMs;
    for (const c of conns) c.expireBefore(cutoff);
  }, Math.min(250, cfg.timeoutMs));
  const hist = new Histogram();
  const serviceHist = new Histogram();
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const t0 = performance.now();
  const tMeasure = t0 + cfg.warmupS * 1000;
  const tEnd = tMeasure + cfg.durationS * 1000;
  let n = 0;
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  let cpuS = 0;
  let windowStarted = false;
  let windowEnded = false;

  const markWindow = (now: number) => {
    if (!windowStarted && now >= tMeasure) {
      windowStarted = true;
      cpuAtStart = process.cpuUsage();
      notify({ type: 'window-start' });
    }
    if (windowStarted && !windowEnded && now >= tEnd) {
      windowEnded = true;
      const d = process.cpuUsage(cpuAtStart);
      cpuS = (d.user + d.system) / 1e6;
      notify({ type: 'window-end' });
    }
  };

  const account = (o: Outcome, start: number, sentAt: number, now: number) => {
    if (start < tMeasure || start >= tEnd) return; // warm-up, or started after the end
    if (o.error) {
      errors[o.error] = (errors[o.error] ?? 0) + 1;
      return;
    }
    statuses[o.status] = (statuses[o.status] ?? 0) + 1;
    hist.record((now - start) * 1000);
    if (cfg.mode === 'rate') serviceHist.record((now - sentAt) * 1000);
  };

  // Ring buffer of intended start times waiting for a free connection (rate mode).
  const cap = cfg.mode === 'rate' ? Math.min(MAX_BACKLOG, Math.ceil(cfg.rate * (cfg.warmupS + cfg.durationS)) + 1) : 1;
  const backlog = new Float64Array(cap);
  let head = 0;
  let tail = 0;
  let unsent = 0;
  let issued = 0;
  let stopped = false;
  const perMs = cfg.rate / 1000;
  const idle: Connection[] = cfg.mode === 'rate' ? [...conns] : [];

  // Rate mode: queue what is due by `now`, then hand it to idle connections. Called from the
  // 1 ms timer and from every answer, so at high rates requests leave within microseconds of
  // their intended time instead of waiting for the next timer tick.
  const pump = (now: number) => {
    if (stopped) return;
    const due = Math.floor((Math.min(now, tEnd) - t0) * perMs);
    for (; issued < due; issued++) {
      if (tail - head < cap) backlog[tail++ % cap] = t0 + issued / perMs;
      else unsent++;
    }
    while (head < tail && idle.length > 0) fire(idle.pop()!, backlog[head++ % cap]);
  };

  const fire = (c: Connection, intended: number | undefined) => {
    const sentAt = performance.now();
    const start = intended ?? sentAt;
    c.send(build(n++), (o) => {
      const now = performance.now();
      account(o, start, sentAt, now);
      markWindow(now);
      const next = () => {
        if (cfg.mode === 'max') {
          if (performance.now() < tEnd) fire(c, undefined);
          return;
        }
        idle.push(c);
        pump(performance.now());
      };
      if (o.error !== 'connect') return next();
      setTimeout(next, RECONNECT_PAUSE_MS);
    });
  };

  await new Promise<void>((resolve) => {
    if (cfg.mode === 'max') {
      for (const c of conns) fire(c, undefined);
      const poll = setInterval(() => {
        const now = performance.now();
        markWindow(now);
        if (now >= tEnd) {
          clearInterval(poll);
          resolve();
        }
      }, 50);
      return;
    }
    const tick = () => {
      const now = performance.now();
      markWindow(now);
      pump(now);
      if (now < tEnd) return void setTimeout(tick, 1);
      stopped = true;
      resolve();
    };
    tick();
  });

  // Requests still queued at the end were due inside the window but never sent.
  for (let i = head; i < tail; i++) if (backlog[i % cap]! >= tMeasure) unsent++;
  head = tail;
  await drain(conns, cfg.timeoutMs);
  markWindow(Math.max(performance.now(), tEnd));
  clearInterval(sweep);
  for (const c of conns) c.close();
  const service = cfg.mode === 'rate' ? serviceHist.serialize() : undefined;
  return { worker: cfg.worker, hist: hist.serialize(), serviceHist: service, statuses, errors, unsent, windowS: cfg.durationS, cpuS };
}

/** Waits for in-flight requests, at most `timeoutMs` (they time out on their own by then). */
async function drain(conns: Connection[], timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs + 100;
  while (conns.some((c) => c.busy) && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 5));
  }
}

// Entry point when forked by run.ts: one config in, one result out, then exit.
if (process.send) {
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
