// Where what an agent declares disagrees with what the service observed (decisions §5). Pure.
// Each discrepancy carries the declared and observed values so a reviewer can see both sides.
import type { Discrepancy } from '../../schemas/agents.ts';
import { modelCandidates } from '../pricing/match.ts';
import type { AgentFacts } from './facts.ts';
import { totalModelUses } from './observed.ts';

export function detectDiscrepancies(facts: AgentFacts): Discrepancy[] {
  const found: Discrepancy[] = [];
  const models = facts.observed.models ?? {};
  const uses = totalModelUses(facts.observed);

  if (!facts.external_llm_calls && uses > 0) {
    const top = mostUsed(models);
    found.push({
      kind: 'undeclared_llm_calls',
      detail: `Declares no external LLM calls, but ${uses} model call(s) were observed (mostly ${top!.name}).`,
      declared: false,
      observed: top!.name,
    });
  }

  if (facts.primary_model && uses > 0) {
    const mismatch = primaryModelMismatch(facts.primary_model, models);
    if (mismatch) {
      found.push({
        kind: 'primary_model_mismatch',
        detail: `Declares ${facts.primary_model} as primary model, but mostly uses ${mismatch.name} (${mismatch.uses} of ${uses} calls).`,
        declared: facts.primary_model,
        observed: mismatch.name,
      });
    }
  }

  const beacon = facts.observed.beacon;
  if (beacon && beacon.framework !== facts.framework) {
    found.push({
      kind: 'framework_mismatch',
      detail: `Registered as ${facts.framework}, but its beacon reports ${beacon.framework}.`,
      declared: facts.framework,
      observed: beacon.framework,
    });
  }

  if (facts.probe_tls_valid === false) {
    found.push({
      kind: 'tls_invalid',
      detail: `The TLS certificate of the declared endpoint ${facts.endpoint_url ?? '(no longer declared)'} did not validate.`,
      declared: facts.endpoint_url,
      observed: false,
    });
  }
  return found;
}

/** Two names are one model when their lookup ids meet: `gpt-4o-2024-08-06` is `gpt-4o`. */
export function sameModel(a: string, b: string): boolean {
  const ids = new Set(modelCandidates(a));
  return modelCandidates(b).some((id) => ids.has(id));
}

function mostUsed(models: Record<string, number>): { name: string; uses: number } | undefined {
  let best: { name: string; uses: number } | undefined;
  for (const [name, uses] of Object.entries(models)) {
    if (!best || uses > best.uses || (uses === best.uses && name < best.name)) best = { name, uses };
  }
  return best;
}

/**
 * The model used more than the declared one, if any. Spellings of one model (dated variants,
 * provider prefixes) are counted together; a tie is not a mismatch.
 */
function primaryModelMismatch(declared: string, models: Record<string, number>): { name: string; uses: number } | undefined {
  let declaredUses = 0;
  const others: Array<{ name: string; uses: number }> = [];
  for (const [name, uses] of Object.entries(models)) {
    if (sameModel(name, declared)) declaredUses += uses;
    else others.push({ name, uses });
  }
  let best: { name: string; uses: number } | undefined;
  for (const candidate of others) {
    const group = others.reduce((sum, o) => (sameModel(o.name, candidate.name) ? sum + o.uses : sum), 0);
    if (!best || group > best.uses || (group === best.uses && candidate.name < best.name)) best = { name: candidate.name, uses: group };
  }
  return best && best.uses > declaredUses ? best : undefined;
}
