import { describe, expect, it } from 'vitest';
import { detectDiscrepancies, sameModel } from '../lib/registry/discrepancies.ts';
import type { AgentFacts } from '../lib/registry/facts.ts';
import { MAX_MODELS, mergeObservations } from '../lib/registry/observed.ts';
import { checkTransition, isLegalTransition } from '../lib/registry/transitions.ts';
import { AGENT_STATUSES } from '../schemas/agents.ts';

const base: AgentFacts = {
  status: 'APPROVED',
  framework: 'LANGCHAIN',
  owner_email: 'owner@example.com',
  contains_pii: false,
  external_llm_calls: true,
  writes_to_systems: false,
  hitl_required: false,
  primary_model: null,
  endpoint_url: 'https://agent.example.com',
  probe_reachable: null,
  probe_tls_valid: null,
  observed: {},
};
const facts = (over: Partial<AgentFacts>): AgentFacts => ({ ...base, ...over });
const kinds = (f: AgentFacts) => detectDiscrepancies(f).map((d) => d.kind);

describe('discrepancies', () => {
  it('finds none when declarations match observations', () => {
    const f = facts({ primary_model: 'gpt-4o', observed: { models: { 'gpt-4o': 5 }, beacon: { framework: 'LANGCHAIN', version: '1', at: '' } }, probe_tls_valid: true });
    expect(detectDiscrepancies(f)).toEqual([]);
  });

  it('flags model use by an agent that declares no external LLM calls', () => {
    const found = detectDiscrepancies(facts({ external_llm_calls: false, observed: { models: { 'claude-sonnet-4': 2, 'gpt-4o': 7 } } }));
    expect(found).toEqual([{ kind: 'undeclared_llm_calls', detail: expect.stringContaining('9 model call(s)'), declared: false, observed: 'gpt-4o' }]);
  });

  it('does not flag undeclared calls when nothing was observed', () => {
    expect(kinds(facts({ external_llm_calls: false, observed: { models: {} } }))).toEqual([]);
  });

  it('flags a declared primary model that is not the one mostly used', () => {
    const found = detectDiscrepancies(facts({ primary_model: 'gpt-4o', observed: { models: { 'gpt-4o': 2, 'claude-sonnet-4': 5 } } }));
    expect(found).toEqual([{ kind: 'primary_model_mismatch', detail: expect.stringContaining('5 of 7'), declared: 'gpt-4o', observed: 'claude-sonnet-4' }]);
  });

  it('counts dated variants and provider prefixes as the declared model', () => {
    const models = { 'gpt-4o-2024-08-06': 3, 'openai/gpt-4o': 2, 'gpt-4o-mini': 4 };
    expect(kinds(facts({ primary_model: 'gpt-4o', observed: { models } }))).toEqual([]);
    expect(sameModel('gpt-4o-2024-08-06', 'gpt-4o')).toBe(true);
    expect(sameModel('gpt-4o-mini', 'gpt-4o')).toBe(false);
  });

  it('groups the other spellings of one model before comparing', () => {
    const models = { 'gpt-4o': 4, 'gpt-4o-mini-2024-07-18': 3, 'gpt-4o-mini': 3 };
    const found = detectDiscrepancies(facts({ primary_model: 'gpt-4o', observed: { models } }));
    expect(found.map((d) => [d.kind, d.observed])).toEqual([['primary_model_mismatch', 'gpt-4o-mini']]);
  });

  it('treats a tie between the declared model and another as no mismatch', () => {
    expect(kinds(facts({ primary_model: 'gpt-4o', observed: { models: { 'gpt-4o': 3, 'claude-sonnet-4': 3 } } }))).toEqual([]);
  });

  it('flags a beacon framework that differs from the registry', () => {
    const found = detectDiscrepancies(facts({ observed: { beacon: { framework: 'CREWAI', version: '2', at: '' } } }));
    expect(found).toEqual([{ kind: 'framework_mismatch', detail: expect.any(String), declared: 'LANGCHAIN', observed: 'CREWAI' }]);
  });

  it('flags an endpoint whose TLS probe failed, and not one never probed', () => {
    expect(detectDiscrepancies(facts({ probe_tls_valid: false }))).toEqual([
      { kind: 'tls_invalid', detail: expect.stringContaining('https://agent.example.com'), declared: 'https://agent.example.com', observed: false },
    ]);
    expect(kinds(facts({ probe_tls_valid: null }))).toEqual([]);
  });
});

describe('observation merge', () => {
  const now = new Date('2025-03-01T10:00:00Z');

  it('adds model uses, or replaces them with a snapshot', () => {
    const once = mergeObservations({}, { models: { 'gpt-4o': 2 } }, now);
    const twice = mergeObservations(once, { models: { 'gpt-4o': 3, 'o3': 1 } }, now);
    expect(twice.models).toEqual({ 'gpt-4o': 5, o3: 1 });
    expect(mergeObservations(twice, { models: { o3: 9 }, replaceModels: true }, now).models).toEqual({ o3: 9 });
  });

  it('keeps only the most used models beyond the bound', () => {
    const many = Object.fromEntries(Array.from({ length: MAX_MODELS + 10 }, (_, i) => [`m${i}`, i + 1]));
    const merged = mergeObservations({}, { models: many }, now).models!;
    expect(Object.keys(merged)).toHaveLength(MAX_MODELS);
    expect(merged.m0).toBeUndefined();
    expect(merged[`m${MAX_MODELS + 9}`]).toBe(MAX_MODELS + 10);
  });

  it('replaces failing checks and upper-cases severities; records the beacon framework upper-cased', () => {
    const a = mergeObservations({}, { failingChecks: [{ check_id: 'x', severity: 'high' }] }, now);
    expect(a.failing_checks).toEqual([{ check_id: 'x', severity: 'HIGH' }]);
    expect(mergeObservations(a, { failingChecks: [] }, now).failing_checks).toEqual([]);
    const b = mergeObservations(a, { beacon: { framework: ' crewai ', version: '1.2' } }, now);
    expect(b.beacon).toEqual({ framework: 'CREWAI', version: '1.2', at: now.toISOString() });
    expect(b.failing_checks).toEqual(a.failing_checks);
  });

  it('accumulates telemetry and keeps the latest span time', () => {
    const a = mergeObservations({}, { telemetry: { spans: 5, lastSpanAt: '2025-03-01T09:00:00Z', serviceName: 'svc' } }, now);
    const b = mergeObservations(a, { telemetry: { spans: 2, lastSpanAt: '2025-03-01T08:00:00Z' } }, now);
    expect(b.telemetry).toEqual({ spans: 7, last_span_at: '2025-03-01T09:00:00Z', service_name: 'svc' });
  });
});

describe('status transitions', () => {
  it('allows exactly the documented moves (and staying in place)', () => {
    const legal = AGENT_STATUSES.flatMap((from) => AGENT_STATUSES.filter((to) => from !== to && isLegalTransition(from, to)).map((to) => `${from}>${to}`));
    expect(legal.sort()).toEqual(['APPROVED>PENDING_REVIEW', 'DISCOVERED>PENDING_REVIEW', 'PENDING_REVIEW>APPROVED']);
    for (const s of AGENT_STATUSES) expect(isLegalTransition(s, s)).toBe(true);
  });

  it('refuses approval by a non-admin with 403 before looking at legality', () => {
    expect(() => checkTransition('DISCOVERED', 'APPROVED', false)).toThrow(expect.objectContaining({ code: 'admin_required', status: 403 }));
    expect(() => checkTransition('DISCOVERED', 'APPROVED', true)).toThrow(expect.objectContaining({ code: 'invalid_transition', status: 422 }));
    expect(() => checkTransition('PENDING_REVIEW', 'APPROVED', true)).not.toThrow();
  });
});
