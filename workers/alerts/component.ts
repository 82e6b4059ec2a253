// The alerts worker: detection every 5 minutes and the outbox sender every minute, on node-cron.
// Both read the time from an injected clock so a test can drive them; the cron only decides when
// a pass runs. At start the sender runs at once, so what a stopped process left pending (or
// failed to send) goes out without waiting, and detection runs once to catch up.
import cron, { type ScheduledTask } from 'node-cron';
import type { AnalyticsStore } from '../../lib/analytics/store.ts';
import type { Config } from '../../lib/config.ts';
import { deliverDue, type DeliveryResult } from '../../lib/email/outbox.ts';
import { createMailTransport, type MailTransport } from '../../lib/email/transport.ts';
import type { Logger } from '../../lib/log.ts';
import type { Database } from '../../lib/postgres/database.ts';
import { runDetection, type DetectionResult } from './detect.ts';

export const DETECTION_SCHEDULE = '*/5 * * * *';
export const SENDER_SCHEDULE = '* * * * *';

export interface AlertsDeps {
  config: Pick<Config, 'smtpUrl' | 'smtpFrom' | 'dataDir'>;
  logger: Logger;
  db: Database;
  analytics: AnalyticsStore;
  /** Default: the real time. */
  clock?: () => Date;
  /** Default: built from config (SMTP_URL, else .eml files under DATA_DIR/outbox). */
  transport?: MailTransport;
}

export interface AlertsComponent {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** One detection pass at the clock's time (what the cron runs). */
  detect(): Promise<DetectionResult>;
  /** One sender pass at the clock's time (what the cron runs). */
  deliver(): Promise<DeliveryResult>;
}

export function createAlertsComponent(deps: AlertsDeps): AlertsComponent {
  const logger = deps.logger.child({ worker: 'alerts' });
  const clock = deps.clock ?? (() => new Date());
  const transport = deps.transport ?? createMailTransport({ smtpUrl: deps.config.smtpUrl, from: deps.config.smtpFrom, dataDir: deps.config.dataDir, logger });
  const tasks: ScheduledTask[] = [];
  const running = new Set<Promise<unknown>>();

  const detect = () => runDetection({ db: deps.db, analytics: deps.analytics, logger }, clock());
  const deliver = () => deliverDue({ db: deps.db, transport, logger }, clock());
  // A pass in flight when stop() is called finishes before the store closes under it.
  const track = <T>(work: () => Promise<T>, what: string) => {
    const p = work().catch((error) => logger.error(`alerts ${what} pass failed`, { error }));
    running.add(p);
    void p.finally(() => running.delete(p));
    return p;
  };

  return {
    name: 'alerts',
    detect,
    deliver,
    async start() {
      const options = { noOverlap: true };
      tasks.push(cron.createTask(DETECTION_SCHEDULE, () => track(async () => {
        const found = await detect();
        if (found.recorded.length > 0) await deliver();
      }, 'detection'), { ...options, name: 'alerts-detection' }));
      tasks.push(cron.createTask(SENDER_SCHEDULE, () => track(deliver, 'sender'), { ...options, name: 'alerts-sender' }));
      for (const task of tasks) await task.start();
      void track(async () => {
        await deliver();
        const found = await detect();
        if (found.recorded.length > 0) await deliver();
      }, 'start-up');
    },
    async stop() {
      for (const task of tasks.splice(0)) await task.destroy();
      await Promise.all(running);
      transport.close();
    },
  };
}
