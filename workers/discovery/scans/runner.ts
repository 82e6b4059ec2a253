// The scan runner of a workers process: takes queued discovery scans one at a time and runs
// them. Woken at once by LISTEN/NOTIFY (a trigger notifies on every queued scan) and polling
// every second as well, so a lost notification or connection only delays a scan. Each poll
// also re-queues scans whose process died (heartbeat older than staleAfterMs).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type pg from 'pg';
import type { AnalyticsStore } from '../../../lib/analytics/store.ts';
import type { Logger } from '../../../lib/log.ts';
import type { Database } from '../../../lib/postgres/database.ts';
import type { BackgroundComponent } from '../../workers-tier.ts';
import { SCAN_QUEUED_CHANNEL, claimNextScan, releaseScan, requeueStaleScans, saveProgress, type ClaimedScan } from './queue.ts';
import { ScanInterrupted, runScan } from './run-scan.ts';
import { DEFAULT_SCAN_RUN_OPTIONS, type ScanRunOptions } from './tally.ts';

export interface ScanRunnerOptions {
  pollIntervalMs: number;
  /** A running scan whose heartbeat is older than this is taken to be orphaned. */
  staleAfterMs: number;
  heartbeatMs: number;
  maxAttempts: number;
  run: ScanRunOptions;
}

export const DEFAULT_SCAN_RUNNER_OPTIONS: ScanRunnerOptions = {
  pollIntervalMs: 1_000,
  staleAfterMs: 120_000,
  heartbeatMs: 10_000,
  maxAttempts: 3,
  run: DEFAULT_SCAN_RUN_OPTIONS,
};

export interface ScanRunnerDeps {
  db: Database;
  analytics: AnalyticsStore;
  logger: Logger;
  now?: () => Date;
}

export function createScanRunner(deps: ScanRunnerDeps, overrides: Partial<ScanRunnerOptions> = {}): BackgroundComponent {
  const options = { ...DEFAULT_SCAN_RUNNER_OPTIONS, ...overrides };
  const logger = deps.logger.child({ component: 'discovery-scans' });
  const worker = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const abort = new AbortController();
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;
  let wakeAgain = false;
  let listener: { client: pg.PoolClient; drop(error?: Error): void } | undefined;
  let current: string | undefined;

  const schedule = (ms: number) => {
    if (stopping) return;
    clearTimeout(timer);
    timer = setTimeout(wake, ms);
  };

  function wake(): void {
    if (stopping) return;
    if (loop) {
      wakeAgain = true;
      return;
    }
    loop = drain()
      .catch((error) => logger.error('discovery scan loop failed', { error }))
      .finally(() => {
        loop = undefined;
        if (wakeAgain && !stopping) {
          wakeAgain = false;
          wake();
        } else schedule(options.pollIntervalMs);
      });
  }

  async function drain(): Promise<void> {
    await ensureListener();
    for (const stale of await requeueStaleScans(deps.db, options.staleAfterMs, options.maxAttempts)) {
      logger.warn('discovery scan orphaned by a stopped process', stale);
    }
    while (!stopping) {
      const scan = await claimNextScan(deps.db, worker);
      if (!scan) return;
      await runClaimed(scan);
    }
  }

  async function runClaimed(scan: ClaimedScan): Promise<void> {
    current = scan.id;
    logger.info('discovery scan started', { scan_id: scan.id, scanner: scan.scanner, attempt: scan.attempts });
    const heartbeat = setInterval(() => {
      saveProgress(deps.db, scan.id, worker).catch((error) => logger.warn('discovery scan heartbeat failed', { scan_id: scan.id, error }));
    }, options.heartbeatMs);
    try {
      await runScan({ ...deps, logger, worker, now: deps.now ?? (() => new Date()), options: options.run }, scan, abort.signal);
      logger.info('discovery scan finished', { scan_id: scan.id });
    } catch (error) {
      if (!(error instanceof ScanInterrupted)) throw error;
      const outcome = await releaseScan(deps.db, scan.id, worker);
      logger.info('discovery scan handed back', { scan_id: scan.id, reason: error.message, outcome });
    } finally {
      clearInterval(heartbeat);
      current = undefined;
    }
  }

  /** Best effort: without a listener the poll still finds every scan. */
  async function ensureListener(): Promise<void> {
    if (listener || stopping) return;
    let client: pg.PoolClient | undefined;
    let released = false;
    // Destroyed, never returned to the pool: it carries our listeners and a LISTEN.
    const drop = (own: pg.PoolClient, error?: Error) => {
      if (listener?.client === own) listener = undefined;
      if (!released) own.release(error ?? true);
      released = true;
    };
    try {
      client = await deps.db.pool.connect();
      const own = client;
      own.on('notification', () => wake());
      own.on('error', (error) => {
        logger.warn('discovery scan listener lost; polling until it reconnects', { error });
        drop(own, error);
      });
      await own.query(`LISTEN ${SCAN_QUEUED_CHANNEL}`);
      listener = { client: own, drop: (error) => drop(own, error) };
    } catch (error) {
      if (client) drop(client, error as Error);
      logger.warn('discovery scan listener unavailable; polling only', { error });
    }
  }

  return {
    name: 'discovery_scans',
    async start() {
      wake();
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      abort.abort();
      await loop;
      listener?.drop();
    },
    async health() {
      return { up: true, details: { running_scan: current ?? null, listening: listener !== undefined } };
    },
  };
}
