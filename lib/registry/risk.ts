// Risk score of an agent: a sum of points per risk factor, capped at 100 (decisions §5). Pure.
// The table is documented in docs/risk.md; change both together. Every factor that scores is
// returned with its points and a reason, so a reviewer can see why an agent is where it is.
import type { Discrepancy, RiskFactor, RiskLevel } from '../../schemas/agents.ts';
import type { AgentFacts } from './facts.ts';
import { totalModelUses } from './observed.ts';

export const RISK_POINTS = {
  contains_pii: 20,
  writes_without_hitl: 20,
  external_llm_calls: 10,
  no_owner: 10,
  endpoint_unreachable: 10,
  tls_invalid: 10,
  failing_checks: 10,
  /** Added to failing_checks when one of the failing checks is HIGH or CRITICAL. */
  failing_checks_severe_bonus: 5,
  status_discovered: 10,
  status_pending_review: 5,
  per_discrepancy: 5,
  discrepancies_max: 15,
} as const;

const SEVERE = new Set(['HIGH', 'CRITICAL']);

// tls_invalid is already scored as its own factor: counting its discrepancy too would score
// the same fact twice.
const DISCREPANCIES_SCORED_ELSEWHERE = new Set<Discrepancy['kind']>(['tls_invalid']);

export interface RiskAssessment {
  score: number;
  level: RiskLevel;
  factors: RiskFactor[];
}

export function riskLevel(score: number): RiskLevel {
  if (score >= 75) return 'CRITICAL';
  if (score >= 50) return 'HIGH';
  if (score >= 25) return 'MEDIUM';
  return 'LOW';
}

export function computeRisk(facts: AgentFacts, discrepancies: readonly Discrepancy[]): RiskAssessment {
  const factors: RiskFactor[] = [];
  const add = (factor: string, points: number, detail: string) => factors.push({ factor, points, detail });

  if (facts.contains_pii) add('contains_pii', RISK_POINTS.contains_pii, 'Handles personal data.');
  if (facts.writes_to_systems && !facts.hitl_required) {
    add('writes_without_hitl', RISK_POINTS.writes_without_hitl, 'Writes to other systems without a human in the loop.');
  }
  const observedUses = totalModelUses(facts.observed);
  if (facts.external_llm_calls || observedUses > 0) {
    const why = facts.external_llm_calls ? 'Declares external LLM calls.' : `Makes external LLM calls (${observedUses} observed).`;
    add('external_llm_calls', RISK_POINTS.external_llm_calls, why);
  }
  if (!facts.owner_email) add('no_owner', RISK_POINTS.no_owner, 'No owner is recorded.');
  if (facts.probe_reachable === false) add('endpoint_unreachable', RISK_POINTS.endpoint_unreachable, 'The endpoint did not answer the last probe.');
  if (facts.probe_tls_valid === false) add('tls_invalid', RISK_POINTS.tls_invalid, 'The endpoint TLS certificate did not validate.');

  const failing = facts.observed.failing_checks ?? [];
  if (failing.length > 0) {
    const severe = failing.filter((c) => SEVERE.has(c.severity)).length;
    const points = RISK_POINTS.failing_checks + (severe > 0 ? RISK_POINTS.failing_checks_severe_bonus : 0);
    const names = failing.slice(0, 5).map((c) => c.check_id).join(', ') + (failing.length > 5 ? ', ...' : '');
    add('failing_checks', points, `${failing.length} quality check(s) failing (${severe} HIGH or CRITICAL): ${names}.`);
  }

  if (facts.status === 'DISCOVERED') add('unreviewed', RISK_POINTS.status_discovered, 'Discovered and never reviewed.');
  if (facts.status === 'PENDING_REVIEW') add('unreviewed', RISK_POINTS.status_pending_review, 'Waiting for review.');

  const counted = discrepancies.filter((d) => !DISCREPANCIES_SCORED_ELSEWHERE.has(d.kind));
  if (counted.length > 0) {
    const points = Math.min(RISK_POINTS.discrepancies_max, counted.length * RISK_POINTS.per_discrepancy);
    add('discrepancies', points, `Declared and observed facts disagree: ${counted.map((d) => d.kind).join(', ')}.`);
  }

  const score = Math.min(100, factors.reduce((sum, f) => sum + f.points, 0));
  return { score, level: riskLevel(score), factors };
}
