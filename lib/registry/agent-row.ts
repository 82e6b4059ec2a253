// One `agents` row as the store reads and writes it, its JSON answer, and the recomputation of
// its derived columns (risk and discrepancies), which every write of an input goes through.
import type { Agent, AgentSource, AgentStatus, Discrepancy, RiskFactor, RiskLevel } from '../../schemas/agents.ts';
import { detectDiscrepancies } from './discrepancies.ts';
import type { AgentFacts } from './facts.ts';
import { parseObserved, type Observed } from './observed.ts';
import { computeRisk } from './risk.ts';

export interface AgentRow {
  id: string;
  external_id: string;
  name: string;
  framework: string;
  status: AgentStatus;
  risk_score: number;
  risk_level: RiskLevel;
  risk_factors: RiskFactor[];
  discrepancies: Discrepancy[];
  owner_email: string | null;
  department: string | null;
  contains_pii: boolean;
  external_llm_calls: boolean;
  writes_to_systems: boolean;
  hitl_required: boolean;
  primary_model: string | null;
  model_provider: string | null;
  endpoint_url: string | null;
  version: string | null;
  description: string | null;
  observed: Observed;
  probe_reachable: boolean | null;
  probe_tls_valid: boolean | null;
  source: AgentSource;
  last_seen_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const AGENT_COLUMNS = `id, external_id, name, framework, status, risk_score, risk_level, risk_factors, discrepancies,
  owner_email, department, contains_pii, external_llm_calls, writes_to_systems, hitl_required, primary_model,
  model_provider, endpoint_url, version, description, observed, probe_reachable, probe_tls_valid, source,
  last_seen_at, created_at, updated_at`;

/** The columns a write may set, in the order of `writeParams` ($2...$24; $1 is the id). */
export const WRITABLE_COLUMNS = [
  'external_id', 'name', 'framework', 'status', 'risk_score', 'risk_level', 'risk_factors', 'discrepancies',
  'owner_email', 'department', 'contains_pii', 'external_llm_calls', 'writes_to_systems', 'hitl_required',
  'primary_model', 'model_provider', 'endpoint_url', 'version', 'description', 'observed', 'probe_reachable',
  'probe_tls_valid', 'last_seen_at',
] as const;

// jsonb values go as JSON text: node-postgres would send a JS array as a PostgreSQL array.
const JSON_COLUMNS = new Set<string>(['risk_factors', 'discrepancies', 'observed']);

export function writeParams(row: Omit<AgentRow, 'id' | 'source' | 'created_at' | 'updated_at'>): unknown[] {
  return WRITABLE_COLUMNS.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(row[c]) : row[c]));
}

export function factsOf(row: Omit<AgentRow, 'id' | 'source' | 'created_at' | 'updated_at'>): AgentFacts {
  return {
    status: row.status,
    framework: row.framework,
    owner_email: row.owner_email,
    contains_pii: row.contains_pii,
    external_llm_calls: row.external_llm_calls,
    writes_to_systems: row.writes_to_systems,
    hitl_required: row.hitl_required,
    primary_model: row.primary_model,
    endpoint_url: row.endpoint_url,
    probe_reachable: row.probe_reachable,
    probe_tls_valid: row.probe_tls_valid,
    observed: row.observed,
  };
}

/** Sets risk_score, risk_level, risk_factors and discrepancies from the row's inputs. */
export function reassess<T extends Omit<AgentRow, 'id' | 'source' | 'created_at' | 'updated_at'>>(row: T): T {
  const facts = factsOf(row);
  const discrepancies = detectDiscrepancies(facts);
  const risk = computeRisk(facts, discrepancies);
  return { ...row, discrepancies, risk_score: risk.score, risk_level: risk.level, risk_factors: risk.factors };
}

export function fromDatabase(raw: Record<string, unknown>): AgentRow {
  const row = raw as unknown as AgentRow;
  return { ...row, observed: parseObserved(raw.observed) };
}

export function toAgent(row: AgentRow): Agent {
  return {
    agent_id: row.id,
    external_id: row.external_id,
    name: row.name,
    framework: row.framework,
    risk_level: row.risk_level,
    risk_score: row.risk_score,
    risk_factors: row.risk_factors,
    discrepancies: row.discrepancies,
    status: row.status,
    owner_email: row.owner_email,
    department: row.department,
    contains_pii: row.contains_pii,
    external_llm_calls: row.external_llm_calls,
    writes_to_systems: row.writes_to_systems,
    hitl_required: row.hitl_required,
    primary_model: row.primary_model,
    model_provider: row.model_provider,
    probe_reachable: row.probe_reachable,
    probe_tls_valid: row.probe_tls_valid,
    endpoint_url: row.endpoint_url,
    version: row.version,
    description: row.description,
    source: row.source,
    discovery: row.observed.discovery ?? null,
    last_seen_at: row.last_seen_at ? row.last_seen_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
