// The machine-wide benchmark lock: two engineers' benchmarks share 2 cores, so every measured
// window and every heavy data generation runs while holding an exclusive flock on one file.
// Node has no flock, so a `flock` child holds it: it prints once it has the lock and keeps it
// until its stdin closes, which also happens when this process dies (no lock left behind).
import { spawn } from 'node:child_process';

export const BENCH_LOCK_FILE = process.env.AOR_BENCH_LOCK ?? '/tmp/aor-bench.lock';

export interface HeldLock {
  /** Seconds spent waiting for the lock (someone else's benchmark was running). */
  waitedS: number;
  release(): Promise<void>;
}

export async function acquireBenchLock(maxWaitS = 1800): Promise<HeldLock> {
  const t0 = performance.now();
  const child = spawn('flock', ['-x', '-w', String(maxWaitS), BENCH_LOCK_FILE, 'sh', '-c', 'echo locked; cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`could not take ${BENCH_LOCK_FILE} within ${maxWaitS} s (flock exit ${code})`)));
  });
  return {
    waitedS: (performance.now() - t0) / 1000,
    async release() {
      child.stdin!.end();
      await exited;
    },
  };
}

/** Runs `work` holding the lock; logs when it had to wait for another benchmark. */
export async function withBenchLock<T>(label: string, work: () => Promise<T>, log: (m: string) => void = (m) => console.error(m)): Promise<T> {
  const lock = await acquireBenchLock();
  if (lock.waitedS > 1) log(`[lock] ${label}: waited ${lock.waitedS.toFixed(1)} s for ${BENCH_LOCK_FILE}`);
  try {
    return await work();
  } finally {
    await lock.release();
  }
}
