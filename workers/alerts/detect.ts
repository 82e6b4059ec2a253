// One detection pass: every condition of decisions §10 is evaluated at `now`, and each alert
// found is recorded in the outbox under its key before anything is sent. A key recorded before
// (by this process, an earlier one, or another worker) is left alone: that is what makes an
// alert once per condition and period, across restarts.
import { addBusinessHours } from '../../lib/email/business-hours.ts';
import { enqueueEmail, type StoredMessage } from '../../lib/email/outbox.ts';
import { readInstanceSettings, type InstanceSettings } from '../../lib/instance-settings.ts';
import type { AnalyticsStore } from '../../lib/analytics/store.ts';
import type { Logger } from '../../lib/log.ts';
import type { Database } from '../../lib/postgres/database.ts';
import { detectDegradingChecks } from './checks.ts';
import { detectDiscoveredPii } from './discovered.ts';
import { renderAlert } from './render.ts';
import { detectBudgetCrossings, detectSpendSpikes } from './spend.ts';
import { detectStoppedTelemetry } from './telemetry.ts';
import type { AlertCandidate, Detector } from './types.ts';

/** decisions §10 / spec Events 3: alerts reach the contacts within 2 business hours. */
export const DELIVERY_BUSINESS_HOURS = 2;

export const DETECTORS: Record<string, Detector> = {
  spend_spike: detectSpendSpikes,
  budget: detectBudgetCrossings,
  check_degrading: detectDegradingChecks,
  discovered_pii: detectDiscoveredPii,
  telemetry_stopped: detectStoppedTelemetry,
};

export interface DetectionDeps {
  db: Database;
  analytics: AnalyticsStore;
  logger: Logger;
}

export interface DetectionResult {
  /** Keys recorded by this pass (new alerts). */
  recorded: string[];
  /** Detectors that failed this pass; they run again at the next one. */
  failed: string[];
}

export function alertDueAt(detectedAt: Date, settings: InstanceSettings): Date {
  return addBusinessHours(detectedAt, DELIVERY_BUSINESS_HOURS, {
    startHour: settings.business_hours_start,
    endHour: settings.business_hours_end,
    days: settings.business_days,
    timeZone: settings.time_zone,
  });
}

async function record(deps: DetectionDeps, alert: AlertCandidate, settings: InstanceSettings, now: Date): Promise<boolean> {
  const dueAt = alertDueAt(now, settings);
  const message: StoredMessage = renderAlert(alert, { companyName: settings.company_name, detectedAt: now, timeZone: settings.time_zone });
  const inserted = await enqueueEmail(deps.db, { key: alert.key, kind: alert.kind, details: alert.details, message, detectedAt: now, dueAt });
  if (inserted) {
    for (const key of alert.supersedes ?? []) {
      await enqueueEmail(deps.db, {
        key, kind: key.slice(0, key.indexOf(':')), details: { superseded_by: alert.key }, message: { subject: '', text: '' }, detectedAt: now, dueAt, state: 'superseded',
      });
    }
  }
  return inserted;
}

export async function runDetection(deps: DetectionDeps, now: Date, only?: readonly string[]): Promise<DetectionResult> {
  const settings = await readInstanceSettings(deps.db);
  const result: DetectionResult = { recorded: [], failed: [] };
  for (const [name, detector] of Object.entries(DETECTORS)) {
    if (only && !only.includes(name)) continue;
    let alerts: AlertCandidate[];
    try {
      alerts = await detector({ ...deps, settings, now });
    } catch (error) {
      // One broken condition (a store hiccup, a table not there yet) must not hide the others.
      deps.logger.warn('alert detector failed; it runs again at the next pass', { detector: name, error });
      result.failed.push(name);
      continue;
    }
    for (const alert of alerts) {
      if (await record(deps, alert, settings, now)) {
        deps.logger.info('alert recorded', { key: alert.key, kind: alert.kind });
        result.recorded.push(alert.key);
      }
    }
  }
  return result;
}
