// What every scanner works with: its context, and the tally that turns what it did into the
// scanner's entry of the scan's `results` (counts, the agents it touched, its own figures).
import type { AnalyticsStore } from '../../../lib/analytics/store.ts';
import type { Logger } from '../../../lib/log.ts';
import type { Database } from '../../../lib/postgres/database.ts';
import { MAX_SCAN_AGENTS, type ScanAgent, type ScannerName, type ScannerResult } from '../../../schemas/discovery.ts';
import { upsertFoundAgent, type FoundAgent } from './upsert.ts';

export interface ScanRunOptions {
  /** Bounds one endpoint probe, DNS included (default 5 s). */
  probeTimeoutMs: number;
  probeConcurrency: number;
  /** How far back the ledger and telemetry scanners look (default 90 and 30 days). */
  ledgerWindowDays: number;
  telemetryWindowDays: number;
}

export const DEFAULT_SCAN_RUN_OPTIONS: ScanRunOptions = {
  probeTimeoutMs: 5_000,
  probeConcurrency: 8,
  ledgerWindowDays: 90,
  telemetryWindowDays: 30,
};

export interface ScannerContext {
  db: Database;
  analytics: AnalyticsStore;
  logger: Logger;
  scanId: string;
  scanner: ScannerName;
  now(): Date;
  /** Aborted when the process stops: the scanner returns at its next agent, the scan is re-queued. */
  signal: AbortSignal;
  options: ScanRunOptions;
  tally: ScannerTally;
}

/** A scanner resolves when done; `skipped` with a reason when it had nothing to look at. */
export type Scanner = (ctx: ScannerContext) => Promise<{ skipped?: string } | void>;

export class ScannerTally {
  readonly result: ScannerResult;

  constructor(
    now: Date,
    /** Stores progress (throttled); throws when the scan is no longer ours. */
    private readonly onChange: () => Promise<void>,
  ) {
    this.result = {
      status: 'running',
      started_at: now.toISOString(),
      finished_at: null,
      found: 0,
      created: 0,
      updated: 0,
      not_created: 0,
      agents: [],
      agents_truncated: false,
      details: {},
      error: null,
    };
  }

  get details(): Record<string, unknown> {
    return this.result.details;
  }

  /** Upserts a found agent and counts the outcome. */
  async upsert(ctx: ScannerContext, found: FoundAgent): Promise<void> {
    const outcome = await upsertFoundAgent(ctx.db, found, ctx.now());
    await this.agent({ ...outcome, external_id: found.external_id });
  }

  async agent(entry: ScanAgent): Promise<void> {
    this.result.found += 1;
    if (entry.action === 'created') this.result.created += 1;
    else if (entry.action === 'updated') this.result.updated += 1;
    else this.result.not_created += 1;
    if (this.result.agents.length < MAX_SCAN_AGENTS) this.result.agents.push(entry);
    else this.result.agents_truncated = true;
    await this.onChange();
  }

  /** For a scanner that updates without finding (endpoints): counts it as found and updated. */
  touched(entry: Omit<ScanAgent, 'action'>): Promise<void> {
    return this.agent({ ...entry, action: 'updated' });
  }

  finish(now: Date, outcome: { skipped?: string } | void): void {
    this.result.status = outcome?.skipped ? 'skipped' : 'succeeded';
    if (outcome?.skipped) this.result.reason = outcome.skipped;
    this.result.finished_at = now.toISOString();
  }

  fail(now: Date, message: string): void {
    this.result.status = 'failed';
    this.result.error = message;
    this.result.finished_at = now.toISOString();
  }
}
