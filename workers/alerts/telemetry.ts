// Telemetry that stopped (decisions §10): an OpenTelemetry service (service.name) that was
// sending steadily — spans in at least 3 distinct hours of the 24 hours up to its last span —
// and has sent nothing for 60 minutes. Arrival time (received_at, our clock) decides, as in
// /api/v1/otel/status. Once per silence: the key carries the hour of the last span, so a service
// that resumes and stops again is reported again. Services silent for more than a day are left
// alone (they were reported when they stopped, or were never steady).
//
// Reads spans_per_hour (a few rows per service) to find candidates, then raw_spans for the
// exact last arrival of those few, restricted to their last hour.
import { fromDateTime64 } from '../../lib/analytics/time.ts';
import type { AlertCandidate, DetectionContext } from './types.ts';

export const TELEMETRY = { silenceMinutes: 60, activeHours: 3, lookbackHours: 24 } as const;
const HOUR = 3_600_000;

const chTime = (at: Date): string => at.toISOString().slice(0, 19).replace('T', ' ');

export async function detectStoppedTelemetry(ctx: DetectionContext): Promise<AlertCandidate[]> {
  const now = ctx.now.getTime();
  const since = new Date(now - 2 * TELEMETRY.lookbackHours * HOUR);
  const hours = await ctx.analytics.query<{ service_name: string; hour_start: string; spans: number }>(
    `SELECT service_name, toString(hour) AS hour_start, sum(spans) AS spans FROM spans_per_hour
     WHERE hour >= {since:DateTime} AND hour <= {now:DateTime} GROUP BY service_name, hour`,
    { since: chTime(since), now: chTime(ctx.now) },
  );
  const byService = new Map<string, Array<{ at: number; spans: number }>>();
  for (const h of hours) {
    const list = byService.get(h.service_name) ?? [];
    list.push({ at: Date.parse(`${h.hour_start.replace(' ', 'T')}Z`), spans: Number(h.spans) });
    byService.set(h.service_name, list);
  }
  const candidates: Array<{ service: string; lastHour: number; activeHours: number; spans: number }> = [];
  for (const [service, list] of byService) {
    const lastHour = Math.max(...list.map((h) => h.at));
    if (lastHour + TELEMETRY.silenceMinutes * 60_000 > now || lastHour < now - TELEMETRY.lookbackHours * HOUR) continue;
    const window = list.filter((h) => h.at > lastHour - TELEMETRY.lookbackHours * HOUR);
    if (window.length < TELEMETRY.activeHours) continue;
    candidates.push({ service, lastHour, activeHours: window.length, spans: window.reduce((n, h) => n + h.spans, 0) });
  }
  if (candidates.length === 0) return [];

  const lasts = await ctx.analytics.query<{ service_name: string; last_at: string }>(
    `SELECT service_name, toString(max(received_at)) AS last_at FROM raw_spans
     WHERE received_at >= {from:DateTime64(3, 'UTC')} AND received_at <= {now:DateTime64(3, 'UTC')}
       AND service_name IN {names:Array(String)} GROUP BY service_name`,
    { from: chTime(new Date(Math.min(...candidates.map((c) => c.lastHour)))), now: ctx.now.toISOString().replace('T', ' ').replace('Z', ''), names: candidates.map((c) => c.service) },
  );
  const lastOf = new Map(lasts.map((l) => [l.service_name, fromDateTime64(l.last_at)]));
  const out: AlertCandidate[] = [];
  for (const c of candidates) {
    const lastAt = lastOf.get(c.service) ?? new Date(c.lastHour).toISOString();
    const silentMinutes = Math.floor((now - Date.parse(lastAt)) / 60_000);
    if (silentMinutes < TELEMETRY.silenceMinutes) continue;
    const name = c.service === '' ? '(no service.name)' : c.service;
    out.push({
      key: `telemetry_stopped:${c.service}:${new Date(c.lastHour).toISOString().slice(0, 13)}`,
      kind: 'telemetry_stopped',
      title: `Telemetry from ${name} stopped ${silentMinutes} minutes ago`,
      summary:
        `No span from service ${name} has arrived since ${lastAt} (${silentMinutes} minutes). It had sent ` +
        `${c.spans} spans in ${c.activeHours} distinct hours of the day before. Check the exporter and the service.`,
      facts: [
        ['Service', name],
        ['Last span received', lastAt],
        ['Silent for', `${silentMinutes} minutes`],
        [`Spans in the ${TELEMETRY.lookbackHours} h before`, String(c.spans)],
      ],
      details: { service_name: c.service, last_span_at: lastAt, silent_minutes: silentMinutes, spans_before: c.spans, active_hours: c.activeHours },
    });
  }
  return out;
}
