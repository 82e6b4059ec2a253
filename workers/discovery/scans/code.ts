// `code` scanner: the source folders configured in settings (instance_settings.code_scan_folders),
// read by the code scanner; one registry agent per project that uses an agent framework.
import { readInstanceSettings } from '../../../lib/instance-settings.ts';
import type { Evidence } from '../../../schemas/discovery.ts';
import { scanSourceFoldersWithStats, type FoundCodeAgent } from '../code-scanner/index.ts';
import { pickEvidence } from './evidence.ts';
import type { Scanner } from './tally.ts';

const EVIDENCE_PRIORITY = ['framework', 'agent_name', 'model', 'provider', 'api_key', 'pii', 'dependency'];
const MAX_ERRORS_SHOWN = 20;

export const codeScanner: Scanner = async (ctx) => {
  const folders = (await readInstanceSettings(ctx.db)).code_scan_folders;
  ctx.tally.details.folders = folders;
  if (folders.length === 0) return { skipped: 'no_source_folders_configured' };
  const { agents, stats } = await scanSourceFoldersWithStats(folders);
  ctx.tally.details.files_scanned = stats.files_scanned;
  ctx.tally.details.files_skipped_too_large = stats.files_skipped_too_large;
  ctx.tally.details.truncated = stats.truncated;
  ctx.tally.details.errors = stats.errors.slice(0, MAX_ERRORS_SHOWN);
  ctx.tally.details.error_count = stats.errors.length;
  for (const agent of agents) {
    if (ctx.signal.aborted) return;
    await ctx.tally.upsert(ctx, {
      external_id: agent.external_id,
      declared: {
        name: agent.name,
        framework: agent.framework,
        primary_model: agent.primary_model,
        model_provider: agent.model_provider,
        contains_pii: agent.contains_pii,
        external_llm_calls: agent.external_llm_calls,
      },
      finding: { scanner: 'code', scanId: ctx.scanId, evidence: evidenceOf(agent), facts: factsOf(agent) },
    });
  }
};

function evidenceOf(agent: FoundCodeAgent): Evidence[] {
  return pickEvidence(agent.evidence, EVIDENCE_PRIORITY).map((e) => ({
    scanner: 'code',
    kind: e.kind,
    value: e.value,
    file: e.file,
    line: e.line,
    match: e.match,
  }));
}

function factsOf(agent: FoundCodeAgent): Record<string, unknown> {
  return {
    source_folder: agent.source_folder,
    project_path: agent.project_path,
    frameworks: agent.frameworks,
    agent_names: agent.agent_names,
    models: agent.models,
    providers: agent.providers,
    api_key_env_vars: agent.api_key_env_vars,
    pii_hints: agent.pii_hints,
    evidence_total: agent.evidence.length,
  };
}
