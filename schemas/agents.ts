// The registry's HTTP shapes: the Agent answer, create and patch bodies, the beacon body and
// answer, and registry stats. Bounds on every string so a body cannot grow a row without limit.
import { Type, type Static } from '@sinclair/typebox';
import { AgentDiscoverySchema } from './discovery.ts';

export const AGENT_STATUSES = ['APPROVED', 'DISCOVERED', 'PENDING_REVIEW'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];
export const RISK_LEVELS = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];
export const AGENT_SOURCES = ['api', 'beacon', 'signal', 'discovery', 'telemetry'] as const;
export type AgentSource = (typeof AGENT_SOURCES)[number];

export const LIMITS = {
  name: 200,
  externalId: 200,
  framework: 64,
  email: 254,
  department: 100,
  model: 200,
  provider: 100,
  url: 2048,
  version: 100,
  description: 2000,
} as const;

/** At least one non-space character: a name of blanks names nothing. */
const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '\\S' });
const Nullable = <T extends ReturnType<typeof Text>>(schema: T) => Type.Union([schema, Type.Null()]);
// Deliberately simple: one @, no spaces, a dot in the domain. Deliverability is the owner's job.
const Email = Type.String({ maxLength: LIMITS.email, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' });
/** http(s) only: the endpoint prober speaks HTTP, and other schemes (file:, gopher:) are SSRF bait. */
export const HttpUrl = Type.String({ maxLength: LIMITS.url, pattern: '^[hH][tT][tT][pP][sS]?://[^\\s/?#]+[^\\s]*$' });
const Status = Type.Union(AGENT_STATUSES.map((s) => Type.Literal(s)));
const Instant = Type.String();
const Uuid = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });

export const RiskFactorSchema = Type.Object({
  factor: Type.String(),
  points: Type.Integer(),
  detail: Type.String(),
});
export type RiskFactor = Static<typeof RiskFactorSchema>;

const Scalar = Type.Union([Type.String(), Type.Boolean(), Type.Null()]);
export const DiscrepancySchema = Type.Object({
  kind: Type.Union([
    Type.Literal('undeclared_llm_calls'),
    Type.Literal('primary_model_mismatch'),
    Type.Literal('framework_mismatch'),
    Type.Literal('tls_invalid'),
  ]),
  detail: Type.String(),
  declared: Scalar,
  observed: Scalar,
});
export type Discrepancy = Static<typeof DiscrepancySchema>;
export type DiscrepancyKind = Discrepancy['kind'];

export const AgentSchema = Type.Object({
  agent_id: Uuid,
  external_id: Type.String(),
  name: Type.String(),
  framework: Type.String(),
  risk_level: Type.Union(RISK_LEVELS.map((l) => Type.Literal(l))),
  risk_score: Type.Integer({ minimum: 0, maximum: 100 }),
  risk_factors: Type.Array(RiskFactorSchema),
  discrepancies: Type.Array(DiscrepancySchema),
  status: Status,
  /** null when the agent has no owner (the `no_owner` filter). */
  owner_email: Type.Union([Type.String(), Type.Null()]),
  department: Type.Union([Type.String(), Type.Null()]),
  contains_pii: Type.Boolean(),
  external_llm_calls: Type.Boolean(),
  writes_to_systems: Type.Boolean(),
  hitl_required: Type.Boolean(),
  primary_model: Type.Union([Type.String(), Type.Null()]),
  model_provider: Type.Union([Type.String(), Type.Null()]),
  /** null until the endpoint scanner has probed the agent's endpoint_url. */
  probe_reachable: Type.Union([Type.Boolean(), Type.Null()]),
  probe_tls_valid: Type.Union([Type.Boolean(), Type.Null()]),
  endpoint_url: Type.Union([Type.String(), Type.Null()]),
  version: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  source: Type.Union(AGENT_SOURCES.map((s) => Type.Literal(s))),
  /** What discovery scans found about the agent, with evidence; null when no scan found it. */
  discovery: Type.Union([AgentDiscoverySchema, Type.Null()]),
  last_seen_at: Type.Union([Instant, Type.Null()]),
  created_at: Instant,
  updated_at: Instant,
});
export type Agent = Static<typeof AgentSchema>;

// The declared fields, shared by create and patch; all optional in both.
const declared = {
  external_id: Type.Optional(Text(LIMITS.externalId)),
  owner_email: Type.Optional(Type.Union([Email, Type.Null()])),
  department: Type.Optional(Nullable(Text(LIMITS.department))),
  contains_pii: Type.Optional(Type.Boolean()),
  external_llm_calls: Type.Optional(Type.Boolean()),
  writes_to_systems: Type.Optional(Type.Boolean()),
  hitl_required: Type.Optional(Type.Boolean()),
  primary_model: Type.Optional(Nullable(Text(LIMITS.model))),
  model_provider: Type.Optional(Nullable(Text(LIMITS.provider))),
  endpoint_url: Type.Optional(Type.Union([HttpUrl, Type.Null()])),
  description: Type.Optional(Type.Union([Type.String({ maxLength: LIMITS.description }), Type.Null()])),
};

/** Unknown fields are refused (422): a typo must not be silently dropped. */
export const CreateAgentBodySchema = Type.Object(
  { name: Text(LIMITS.name), framework: Text(LIMITS.framework), ...declared },
  { additionalProperties: false },
);
export type CreateAgentBody = Static<typeof CreateAgentBodySchema>;

export const PatchAgentBodySchema = Type.Object(
  { name: Type.Optional(Text(LIMITS.name)), framework: Type.Optional(Text(LIMITS.framework)), status: Type.Optional(Status), ...declared },
  { additionalProperties: false },
);
export type PatchAgentBody = Static<typeof PatchAgentBodySchema>;

/** Public: sent by agent code. Unknown fields are ignored so newer SDKs keep working. */
export const BeaconBodySchema = Type.Object({
  agent_id: Text(LIMITS.externalId),
  framework: Text(LIMITS.framework),
  version: Type.Optional(Type.Union([Text(LIMITS.version), Type.Null()])),
  endpoint_url: Type.Optional(Type.Union([HttpUrl, Type.Null()])),
});
export type BeaconBody = Static<typeof BeaconBodySchema>;

export const BeaconAnswerSchema = Type.Object({
  agent_id: Uuid,
  external_id: Type.String(),
  status: Status,
  created: Type.Boolean(),
  received_at: Instant,
});
export type BeaconAnswer = Static<typeof BeaconAnswerSchema>;

export const RegistryStatsSchema = Type.Object({
  total: Type.Integer(),
  approved: Type.Integer(),
  critical: Type.Integer(),
  high: Type.Integer(),
  medium: Type.Integer(),
  low: Type.Integer(),
  no_owner: Type.Integer(),
  has_discrepancies: Type.Integer(),
});
export type RegistryStats = Static<typeof RegistryStatsSchema>;
