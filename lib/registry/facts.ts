// The inputs of risk scoring and discrepancy detection: an agent's declared fields, its probe
// results and what was observed. Both computations are pure functions of this.
import type { AgentStatus } from '../../schemas/agents.ts';
import type { Observed } from './observed.ts';

export interface AgentFacts {
  status: AgentStatus;
  framework: string;
  owner_email: string | null;
  contains_pii: boolean;
  external_llm_calls: boolean;
  writes_to_systems: boolean;
  hitl_required: boolean;
  primary_model: string | null;
  endpoint_url: string | null;
  /** null: not probed yet (no penalty). */
  probe_reachable: boolean | null;
  probe_tls_valid: boolean | null;
  observed: Observed;
}
