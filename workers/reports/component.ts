// The weekly health report worker (decisions §10: every Friday). node-cron wakes it every minute;
// the injected clock and the instance settings (report_weekday, report_hour, time_zone) decide
// whether this week's report is due. The report is recorded in the outbox as
// `weekly_report:<ISO week>` before it is sent, so it goes out once a week whatever restarts.
// A process that was down at the report hour sends it when it comes back, within the same week.
import cron, { type ScheduledTask } from 'node-cron';
import type { AnalyticsStore } from '../../lib/analytics/store.ts';
import type { Config } from '../../lib/config.ts';
import { isoWeek, zonedParts } from '../../lib/email/business-hours.ts';
import { deliverDue, enqueueEmail } from '../../lib/email/outbox.ts';
import { createMailTransport, type MailTransport } from '../../lib/email/transport.ts';
import { readInstanceSettings, type InstanceSettings } from '../../lib/instance-settings.ts';
import type { Logger } from '../../lib/log.ts';
import type { Database } from '../../lib/postgres/database.ts';
import { gatherReport } from './data.ts';
import { renderWeeklyReport } from './render.ts';

export const REPORT_CHECK_SCHEDULE = '* * * * *';

export interface WeeklyReportDeps {
  config: Pick<Config, 'smtpUrl' | 'smtpFrom' | 'dataDir'>;
  logger: Logger;
  db: Database;
  analytics: AnalyticsStore;
  clock?: () => Date;
  transport?: MailTransport;
}

/** This week's outbox key when its report is due at `now`, else undefined. */
export function dueReportKey(now: Date, settings: Pick<InstanceSettings, 'report_weekday' | 'report_hour' | 'time_zone'>): string | undefined {
  const local = zonedParts(now, settings.time_zone);
  const due = local.weekday > settings.report_weekday || (local.weekday === settings.report_weekday && local.hour >= settings.report_hour);
  return due ? `weekly_report:${isoWeek(local.year, local.month, local.day)}` : undefined;
}

export interface WeeklyReportComponent {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** One check at the clock's time; returns the key when this call recorded the week's report. */
  tick(): Promise<string | undefined>;
}

export function createWeeklyReportComponent(deps: WeeklyReportDeps): WeeklyReportComponent {
  const logger = deps.logger.child({ worker: 'weekly-report' });
  const clock = deps.clock ?? (() => new Date());
  const transport = deps.transport ?? createMailTransport({ smtpUrl: deps.config.smtpUrl, from: deps.config.smtpFrom, dataDir: deps.config.dataDir, logger });
  let task: ScheduledTask | undefined;
  const running = new Set<Promise<unknown>>();

  const tick = async (): Promise<string | undefined> => {
    const now = clock();
    const settings = await readInstanceSettings(deps.db);
    const key = dueReportKey(now, settings);
    // Nobody to send it to: not recorded, so contacts added later in the week still get it.
    if (!key || settings.alert_contacts.length === 0) return undefined;
    const exists = await deps.db.query('SELECT 1 FROM email_outbox WHERE key = $1', [key]);
    if (exists.rowCount === 0) {
      const data = await gatherReport(deps, settings, now, key.slice('weekly_report:'.length));
      const message = renderWeeklyReport(data);
      // A report has no 2-business-hour promise; due within a day keeps "late" visible in the log.
      const recorded = await enqueueEmail(deps.db, {
        key, kind: 'weekly_report', details: { week: data.week, from: data.from, to: data.to }, message, detectedAt: now, dueAt: new Date(now.getTime() + 86_400_000),
      });
      if (recorded) logger.info('weekly report recorded', { key });
      await deliverDue({ db: deps.db, transport, logger }, now);
      return recorded ? key : undefined;
    }
    return undefined;
  };

  const guarded = () => {
    const p = tick().catch((error) => logger.error('weekly report pass failed', { error }));
    running.add(p);
    void p.finally(() => running.delete(p));
    return p;
  };

  return {
    name: 'weekly-report',
    tick,
    async start() {
      task = cron.createTask(REPORT_CHECK_SCHEDULE, guarded, { noOverlap: true, name: 'weekly-report' });
      await task.start();
      void guarded();
    },
    async stop() {
      await task?.destroy();
      task = undefined;
      await Promise.all(running);
      transport.close();
    },
  };
}
