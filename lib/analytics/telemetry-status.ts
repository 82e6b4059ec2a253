// Telemetry connection status (decisions §8): what arrived and the last rejected export, kept in
// PostgreSQL (telemetry_status, one row) so that every ingest process writes it and the api
// reads it; span and service counts of the last 24 hours come from the analytics store.
//
// The OTLP routes only touch memory: the recorder folds what happened into one pending update
// and writes it at most once a second, so a busy exporter costs one small UPDATE per second per
// process, never one per request.
import type { Logger } from '../log.ts';
import type { Database } from '../postgres/database.ts';
import type { Rejection, TelemetryStatus } from '../../schemas/telemetry.ts';
import type { AnalyticsStore } from './store.ts';
import { getSpanTraffic } from './telemetry-reads.ts';

export type TelemetrySignal = 'traces' | 'metrics' | 'logs';

/** A span newer than this makes the status RECEIVING. */
export const RECENT_WINDOW_MINUTES = 15;
const MAX_REASON_LENGTH = 500;

interface Pending {
  lastSpanAt?: Date;
  lastExportAt: Partial<Record<TelemetrySignal, Date>>;
  spans: number;
  rejections: number;
  lastRejection?: { at: Date; signal: string; status: number; code: string; reason: string };
}

const empty = (): Pending => ({ lastExportAt: {}, spans: 0, rejections: 0 });
const later = (a: Date | undefined, b: Date | undefined): Date | undefined => (!a ? b : !b ? a : b > a ? b : a);

const FLUSH_SQL = `UPDATE telemetry_status SET
    last_span_at = GREATEST(last_span_at, $1),
    last_traces_export_at = GREATEST(last_traces_export_at, $2),
    last_metrics_export_at = GREATEST(last_metrics_export_at, $3),
    last_logs_export_at = GREATEST(last_logs_export_at, $4),
    spans_accepted_total = spans_accepted_total + $5,
    exports_rejected_total = exports_rejected_total + $6,
    last_rejected_signal = CASE WHEN $7::timestamptz >= coalesce(last_rejected_at, '-infinity') THEN $8 ELSE last_rejected_signal END,
    last_rejected_status = CASE WHEN $7::timestamptz >= coalesce(last_rejected_at, '-infinity') THEN $9 ELSE last_rejected_status END,
    last_rejected_code = CASE WHEN $7::timestamptz >= coalesce(last_rejected_at, '-infinity') THEN $10 ELSE last_rejected_code END,
    last_rejected_reason = CASE WHEN $7::timestamptz >= coalesce(last_rejected_at, '-infinity') THEN $11 ELSE last_rejected_reason END,
    last_rejected_at = GREATEST(last_rejected_at, $7),
    updated_at = now()
  WHERE id = 1`;

export class TelemetryStatusRecorder {
  private pending = empty();
  private dirty = false;
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly intervalMs = 1_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flushing;
    await this.flush();
  }

  /** An export was accepted; `spans` is how many spans it stored (0 for metrics and logs). */
  accepted(signal: TelemetrySignal, spans: number, at: Date): void {
    const p = this.pending;
    p.lastExportAt[signal] = later(p.lastExportAt[signal], at);
    if (spans > 0) {
      p.spans += spans;
      p.lastSpanAt = later(p.lastSpanAt, at);
    }
    this.dirty = true;
  }

  /** An export was refused (or partly refused: status 200 with rejected items). */
  rejected(signal: string, status: number, code: string, reason: string, at: Date): void {
    const p = this.pending;
    p.rejections += 1;
    if (!p.lastRejection || at >= p.lastRejection.at) {
      p.lastRejection = { at, signal, status, code, reason: reason.slice(0, MAX_REASON_LENGTH) };
    }
    this.dirty = true;
  }

  /** Writes what is pending; on failure keeps it for the next attempt. */
  flush(): Promise<void> {
    if (this.flushing || !this.dirty) return this.flushing ?? Promise.resolve();
    const batch = this.pending;
    this.pending = empty();
    this.dirty = false;
    const r = batch.lastRejection;
    this.flushing = this.db
      .query(FLUSH_SQL, [
        batch.lastSpanAt ?? null, batch.lastExportAt.traces ?? null, batch.lastExportAt.metrics ?? null, batch.lastExportAt.logs ?? null,
        batch.spans, batch.rejections, r?.at ?? null, r?.signal ?? null, r?.status ?? null, r?.code ?? null, r?.reason ?? null,
      ])
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger.warn('telemetry status not written; will retry', { error });
          this.merge(batch);
        },
      )
      .finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private merge(batch: Pending): void {
    const p = this.pending;
    p.lastSpanAt = later(p.lastSpanAt, batch.lastSpanAt);
    for (const signal of ['traces', 'metrics', 'logs'] as const) p.lastExportAt[signal] = later(p.lastExportAt[signal], batch.lastExportAt[signal]);
    p.spans += batch.spans;
    p.rejections += batch.rejections;
    if (batch.lastRejection && (!p.lastRejection || batch.lastRejection.at > p.lastRejection.at)) p.lastRejection = batch.lastRejection;
    this.dirty = true;
  }
}

interface StatusRow {
  last_span_at: Date | null;
  last_traces_export_at: Date | null;
  last_metrics_export_at: Date | null;
  last_logs_export_at: Date | null;
  spans_accepted_total: string;
  exports_rejected_total: string;
  last_rejected_at: Date | null;
  last_rejected_signal: string | null;
  last_rejected_status: number | null;
  last_rejected_code: string | null;
  last_rejected_reason: string | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export async function readTelemetryStatus(
  db: Database,
  store: AnalyticsStore,
  options: { now: Date; retentionDays: number; maxServices?: number },
): Promise<TelemetryStatus> {
  const [{ rows }, traffic] = await Promise.all([
    db.query<StatusRow>('SELECT * FROM telemetry_status WHERE id = 1'),
    getSpanTraffic(store, { now: options.now, hours: 24 }),
  ]);
  const row = rows[0];
  const lastSpan = row?.last_span_at ?? null;
  const receiving = !!lastSpan && options.now.getTime() - lastSpan.getTime() <= RECENT_WINDOW_MINUTES * 60_000;
  let lastRejection: Rejection | null = null;
  if (row?.last_rejected_at) {
    lastRejection = {
      at: row.last_rejected_at.toISOString(),
      signal: row.last_rejected_signal ?? '',
      status: row.last_rejected_status ?? 0,
      code: row.last_rejected_code ?? '',
      reason: row.last_rejected_reason ?? '',
    };
  }
  return {
    status: receiving ? 'RECEIVING' : lastSpan ? 'STALE' : 'NO_DATA',
    receiving,
    recent_window_minutes: RECENT_WINDOW_MINUTES,
    last_span_at: iso(lastSpan),
    spans_last_24h: traffic.spans,
    services_last_24h: traffic.services.length,
    services: traffic.services.slice(0, options.maxServices ?? 50),
    last_export_at: {
      traces: iso(row?.last_traces_export_at ?? null),
      metrics: iso(row?.last_metrics_export_at ?? null),
      logs: iso(row?.last_logs_export_at ?? null),
    },
    spans_accepted_total: Number(row?.spans_accepted_total ?? 0),
    exports_rejected_total: Number(row?.exports_rejected_total ?? 0),
    last_rejection: lastRejection,
    span_retention_days: options.retentionDays,
  };
}
