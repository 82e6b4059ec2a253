// What a detector hands to the outbox: one candidate alert per condition, subject and period.
import type { AnalyticsStore } from '../../lib/analytics/store.ts';
import type { InstanceSettings } from '../../lib/instance-settings.ts';
import type { Logger } from '../../lib/log.ts';
import type { Database } from '../../lib/postgres/database.ts';

export type AlertKind = 'spend_spike' | 'budget_80' | 'budget_100' | 'check_degrading' | 'discovered_pii' | 'telemetry_stopped';

export interface AlertCandidate {
  /** condition:subject:period — the outbox's unique key, so a second detection is a no-op. */
  key: string;
  kind: AlertKind;
  /** Subject line after the instance prefix. */
  title: string;
  /** One or two sentences: what happened and why it matters. */
  summary: string;
  /** Label/value pairs shown as a table in the email. */
  facts: Array<[string, string]>;
  details: Record<string, unknown>;
  /** Keys of weaker alerts this one replaces; recorded as superseded so they are never sent. */
  supersedes?: string[];
}

export interface DetectionContext {
  db: Database;
  analytics: AnalyticsStore;
  logger: Logger;
  settings: InstanceSettings;
  now: Date;
}

export type Detector = (ctx: DetectionContext) => Promise<AlertCandidate[]>;

export const money = (amount: number, currency: string): string =>
  `${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;

export const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)} %`;
