// What the service has observed about an agent (the `observed` jsonb column), and how a new
// observation merges into it. Pure: the store reads the row, merges, recomputes risk, writes.
// Everything here is bounded so a noisy agent cannot grow its row without limit.
import type { AgentDiscovery } from '../../schemas/discovery.ts';

export interface FailingCheck {
  check_id: string;
  /** Upper-case severity as signals carry it (`HIGH`, `CRITICAL`, ...). */
  severity: string;
}

export interface Observed {
  /** Model name (as reported) → uses seen in cost events, signals and GenAI spans. */
  models?: Record<string, number>;
  /** Quality checks failing in the caller's recent window; replaced as a whole on each report. */
  failing_checks?: FailingCheck[];
  /** What the agent's last beacon said about itself. */
  beacon?: { framework: string; version: string | null; at: string };
  telemetry?: { spans: number; last_span_at?: string; service_name?: string };
  /** What discovery scans found (evidence bounded per scanner); written by workers/discovery/scans. */
  discovery?: AgentDiscovery;
  /** Declared values discovery last suggested: a rescan only refreshes fields nobody changed since. */
  discovery_declared?: Record<string, string | boolean | null>;
}

export interface ObservationPatch {
  /** Uses to add per model name (or to set, with replaceModels). */
  models?: Record<string, number>;
  /** true: `models` is a full snapshot (e.g. a window recomputed from the analytics store). */
  replaceModels?: boolean;
  /** The full current set of failing checks; [] clears it. */
  failingChecks?: FailingCheck[];
  beacon?: { framework: string; version?: string | null; endpointUrl?: string | null };
  telemetry?: { spans?: number; lastSpanAt?: string; serviceName?: string };
  /** Endpoint probe result; tlsValid null when the endpoint is plain http or unreachable. */
  probe?: { reachable: boolean; tlsValid: boolean | null };
  /** Moves last_seen_at forward (never back). */
  seenAt?: Date;
}

export const MAX_MODELS = 50;
export const MAX_FAILING_CHECKS = 100;

/** A stored value we did not write ourselves (older rows, manual edits) must not crash a merge. */
export function parseObserved(value: unknown): Observed {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Observed) : {};
}

export function mergeObservations(current: Observed, patch: ObservationPatch, now: Date): Observed {
  const next: Observed = { ...current };
  if (patch.models) next.models = mergeModels(patch.replaceModels ? {} : (current.models ?? {}), patch.models);
  if (patch.failingChecks) {
    next.failing_checks = patch.failingChecks
      .slice(0, MAX_FAILING_CHECKS)
      .map((c) => ({ check_id: c.check_id, severity: c.severity.toUpperCase() }));
  }
  if (patch.beacon) {
    next.beacon = { framework: normaliseFramework(patch.beacon.framework), version: patch.beacon.version ?? null, at: now.toISOString() };
  }
  if (patch.telemetry) {
    const before = current.telemetry ?? { spans: 0 };
    const t = patch.telemetry;
    next.telemetry = {
      spans: before.spans + Math.max(0, Math.trunc(t.spans ?? 0)),
      last_span_at: latest(before.last_span_at, t.lastSpanAt),
      service_name: t.serviceName ?? before.service_name,
    };
  }
  return next;
}

function mergeModels(base: Record<string, number>, add: Record<string, number>): Record<string, number> {
  const merged: Record<string, number> = { ...base };
  for (const [name, uses] of Object.entries(add)) {
    const n = Math.max(0, Math.trunc(uses));
    if (!name || n === 0) continue;
    merged[name] = (merged[name] ?? 0) + n;
  }
  const entries = Object.entries(merged);
  if (entries.length <= MAX_MODELS) return merged;
  // Keep the most used: the long tail cannot change which model the agent mostly uses.
  return Object.fromEntries(entries.sort((a, b) => b[1] - a[1]).slice(0, MAX_MODELS));
}

function latest(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** Frameworks are upper-case identifiers everywhere (decisions §5). */
export function normaliseFramework(framework: string): string {
  return framework.trim().toUpperCase();
}

export function totalModelUses(observed: Observed): number {
  let total = 0;
  for (const uses of Object.values(observed.models ?? {})) total += uses;
  return total;
}
