// Discovery shapes (decisions §9): the start-scan body, the scan answer with its per-scanner
// detail, and the `discovery` field of an agent (what scans found about it, with evidence).
import { Type, type Static } from '@sinclair/typebox';

/** One scanner each; `all` runs the four in this order. */
export const SCANNERS = ['telemetry', 'ledger', 'code', 'endpoints'] as const;
export type ScannerName = (typeof SCANNERS)[number];
export const SCAN_KINDS = [...SCANNERS, 'all'] as const;
export type ScanKind = (typeof SCAN_KINDS)[number];

export const SCAN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];
export const SCANNER_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped'] as const;
export type ScannerStatus = (typeof SCANNER_STATUSES)[number];

const Instant = Type.String();
const NullableInstant = Type.Union([Instant, Type.Null()]);
const Count = Type.Integer({ minimum: 0 });
const Uuid = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });

/** Unknown fields are refused (422) as for agents; the scanner is matched case-insensitively by the route. */
export const StartScanBodySchema = Type.Object(
  { scanner: Type.Union(SCAN_KINDS.map((s) => Type.Literal(s))) },
  { additionalProperties: false },
);
export type StartScanBody = Static<typeof StartScanBodySchema>;

/**
 * One piece of evidence. Code: `kind` framework | dependency | agent_name | model | provider |
 * api_key | pii with file (relative to the scanned folder), line and match. Ledger and
 * telemetry: kind cost_events | signals | span_agent_id | span_agent_name | service_name with
 * count, first_at and last_at.
 */
export const EvidenceSchema = Type.Object({
  scanner: Type.Union(SCANNERS.map((s) => Type.Literal(s))),
  kind: Type.String(),
  value: Type.String(),
  file: Type.Optional(Type.String()),
  line: Type.Optional(Type.Integer()),
  match: Type.Optional(Type.String()),
  count: Type.Optional(Count),
  first_at: Type.Optional(Instant),
  last_at: Type.Optional(Instant),
  models: Type.Optional(Type.Array(Type.String())),
});
export type Evidence = Static<typeof EvidenceSchema>;

/** The `discovery` field of an agent; null for an agent no scan has found. */
export const AgentDiscoverySchema = Type.Object({
  scanners: Type.Array(Type.String()),
  first_seen_at: Instant,
  last_seen_at: Instant,
  last_scan_id: Uuid,
  /** At most MAX_EVIDENCE_PER_SCANNER per scanner; a rescan replaces that scanner's items. */
  evidence: Type.Array(EvidenceSchema),
  /** Scanner-specific facts of the last finding (code: models, api_key_env_vars, pii_hints...). */
  facts: Type.Record(Type.String(), Type.Unknown()),
});
export type AgentDiscovery = Static<typeof AgentDiscoverySchema>;
export const MAX_EVIDENCE_PER_SCANNER = 50;

export const SCAN_AGENT_ACTIONS = ['created', 'updated', 'not_created'] as const;
export type ScanAgentAction = (typeof SCAN_AGENT_ACTIONS)[number];

export const ScanAgentSchema = Type.Object({
  /** null when the agent was not created. */
  agent_id: Type.Union([Uuid, Type.Null()]),
  external_id: Type.String(),
  name: Type.String(),
  framework: Type.String(),
  action: Type.Union(SCAN_AGENT_ACTIONS.map((a) => Type.Literal(a))),
  /** Why it was not created: `agent_limit_reached`, `external_id_taken`, ... */
  reason: Type.Optional(Type.String()),
});
export type ScanAgent = Static<typeof ScanAgentSchema>;

export const ScannerResultSchema = Type.Object({
  status: Type.Union(SCANNER_STATUSES.map((s) => Type.Literal(s))),
  started_at: NullableInstant,
  finished_at: NullableInstant,
  found: Count,
  created: Count,
  updated: Count,
  not_created: Count,
  /** The agents this scanner created, updated or could not create; at most MAX_SCAN_AGENTS. */
  agents: Type.Array(ScanAgentSchema),
  agents_truncated: Type.Boolean(),
  /** Scanner-specific figures (code: files scanned, folders, errors; endpoints: each probe). */
  details: Type.Record(Type.String(), Type.Unknown()),
  /** Why the scanner was skipped (no folders configured, no spans table) or failed. */
  reason: Type.Optional(Type.String()),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type ScannerResult = Static<typeof ScannerResultSchema>;
export const MAX_SCAN_AGENTS = 500;

export const ScanSchema = Type.Object({
  id: Uuid,
  scanner: Type.Union(SCAN_KINDS.map((s) => Type.Literal(s))),
  status: Type.Union(SCAN_STATUSES.map((s) => Type.Literal(s))),
  requested_by: Type.Union([Uuid, Type.Null()]),
  /** When the scan was requested. */
  started_at: Instant,
  /** When a worker began running it; null while queued. */
  running_at: NullableInstant,
  finished_at: NullableInstant,
  /** Sums over the scanners. */
  found: Count,
  created: Count,
  updated: Count,
  not_created: Count,
  progress: Type.Object({ scanners_total: Count, scanners_done: Count, current: Type.Union([Type.String(), Type.Null()]) }),
  results: Type.Record(Type.String(), ScannerResultSchema),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type Scan = Static<typeof ScanSchema>;
