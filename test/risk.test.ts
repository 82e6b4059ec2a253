import { describe, expect, it } from 'vitest';
import type { AgentFacts } from '../lib/registry/facts.ts';
import { computeRisk, riskLevel, RISK_POINTS } from '../lib/registry/risk.ts';
import type { Discrepancy } from '../schemas/agents.ts';

const base: AgentFacts = {
  status: 'APPROVED',
  framework: 'LANGCHAIN',
  owner_email: 'owner@example.com',
  contains_pii: false,
  external_llm_calls: false,
  writes_to_systems: false,
  hitl_required: false,
  primary_model: null,
  endpoint_url: null,
  probe_reachable: null,
  probe_tls_valid: null,
  observed: {},
};

const facts = (over: Partial<AgentFacts>): AgentFacts => ({ ...base, ...over });
const factorNames = (f: AgentFacts, d: Discrepancy[] = []) => computeRisk(f, d).factors.map((x) => x.factor);

describe('risk score', () => {
  it('scores an owned, approved agent with no risky flag 0 (LOW, no factors)', () => {
    expect(computeRisk(base, [])).toEqual({ score: 0, level: 'LOW', factors: [] });
  });

  it('scores each factor with its documented points', () => {
    const cases: Array<[Partial<AgentFacts>, string, number]> = [
      [{ contains_pii: true }, 'contains_pii', 20],
      [{ writes_to_systems: true, hitl_required: false }, 'writes_without_hitl', 20],
      [{ external_llm_calls: true }, 'external_llm_calls', 10],
      [{ owner_email: null }, 'no_owner', 10],
      [{ probe_reachable: false }, 'endpoint_unreachable', 10],
      [{ probe_tls_valid: false }, 'tls_invalid', 10],
      [{ observed: { failing_checks: [{ check_id: 'c1', severity: 'LOW' }] } }, 'failing_checks', 10],
      [{ observed: { failing_checks: [{ check_id: 'c1', severity: 'HIGH' }] } }, 'failing_checks', 15],
      [{ status: 'DISCOVERED' }, 'unreviewed', 10],
      [{ status: 'PENDING_REVIEW' }, 'unreviewed', 5],
    ];
    for (const [over, factor, points] of cases) {
      const risk = computeRisk(facts(over), []);
      expect(risk.factors, factor).toEqual([{ factor, points, detail: expect.any(String) }]);
      expect(risk.score, factor).toBe(points);
    }
  });

  it('does not score writes to systems when a human is in the loop', () => {
    expect(factorNames(facts({ writes_to_systems: true, hitl_required: true }))).toEqual([]);
  });

  it('counts observed model use as external LLM calls even when not declared', () => {
    const risk = computeRisk(facts({ observed: { models: { 'gpt-4o': 3 } } }), []);
    expect(risk.factors).toEqual([{ factor: 'external_llm_calls', points: 10, detail: 'Makes external LLM calls (3 observed).' }]);
  });

  it('does not penalise an endpoint that was never probed', () => {
    expect(factorNames(facts({ probe_reachable: null, probe_tls_valid: null }))).toEqual([]);
    expect(factorNames(facts({ probe_reachable: true, probe_tls_valid: true }))).toEqual([]);
  });

  it('scores 5 per discrepancy up to 15, and does not count tls_invalid twice', () => {
    const d = (kind: Discrepancy['kind']): Discrepancy => ({ kind, detail: '', declared: null, observed: null });
    expect(computeRisk(base, [d('framework_mismatch')]).score).toBe(5);
    expect(computeRisk(base, [d('framework_mismatch'), d('primary_model_mismatch')]).score).toBe(10);
    const four = [d('framework_mismatch'), d('primary_model_mismatch'), d('undeclared_llm_calls'), d('framework_mismatch')];
    expect(computeRisk(base, four).factors.find((f) => f.factor === 'discrepancies')?.points).toBe(RISK_POINTS.discrepancies_max);
    const tlsOnly = computeRisk(facts({ probe_tls_valid: false }), [d('tls_invalid')]);
    expect(tlsOnly.factors.map((f) => f.factor)).toEqual(['tls_invalid']);
    expect(tlsOnly.score).toBe(10);
  });

  it('sums the factors and caps the score at 100', () => {
    const worst = facts({
      status: 'DISCOVERED',
      owner_email: null,
      contains_pii: true,
      writes_to_systems: true,
      external_llm_calls: true,
      probe_reachable: false,
      probe_tls_valid: false,
      observed: { failing_checks: [{ check_id: 'x', severity: 'CRITICAL' }] },
    });
    const risk = computeRisk(worst, []);
    expect(risk.factors.reduce((s, f) => s + f.points, 0)).toBe(105);
    expect(risk.score).toBe(100);
    expect(risk.level).toBe('CRITICAL');
  });

  it('makes the score equal the sum of listed points below the cap', () => {
    const risk = computeRisk(facts({ contains_pii: true, owner_email: null, status: 'PENDING_REVIEW' }), []);
    expect(risk.score).toBe(35);
    expect(risk.factors.reduce((s, f) => s + f.points, 0)).toBe(35);
    expect(risk.level).toBe('MEDIUM');
  });

  it('maps scores to levels at the documented thresholds', () => {
    expect([0, 24, 25, 49, 50, 74, 75, 100].map(riskLevel)).toEqual(['LOW', 'LOW', 'MEDIUM', 'MEDIUM', 'HIGH', 'HIGH', 'CRITICAL', 'CRITICAL']);
  });
});
