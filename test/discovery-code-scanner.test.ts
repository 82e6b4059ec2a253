// The code scanner finds one agent per sample project under test/fixtures/code-scan, with the
// framework, model, provider, key names and personal-data hints written in its files, and
// evidence lines that point at those files; plain code that mentions "agent" finds nothing.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  scanSourceFolders,
  scanSourceFoldersWithStats,
  type FoundCodeAgent,
} from '../workers/discovery/code-scanner/index.ts';
import { redact } from '../workers/discovery/code-scanner/extractors.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'code-scan');

interface Expected {
  project: string;
  framework: string;
  name: string;
  model: string;
  provider: string;
  apiKeys: string[];
  pii: string[];
  /** A framework import/config line that must be cited: [file in project, text on that line]. */
  frameworkAt: [string, string];
  /** The line that names the model. */
  modelAt: [string, string];
}

const EXPECTED: Expected[] = [
  { project: 'langchain-support', framework: 'LANGCHAIN', name: 'langchain-support', model: 'gpt-4o-mini', provider: 'OPENAI', apiKeys: ['OPENAI_API_KEY'], pii: ['email', 'phone'], frameworkAt: ['support_agent.py', 'from langchain.agents import'], modelAt: ['support_agent.py', 'model="gpt-4o-mini"'] },
  { project: 'langgraph-router', framework: 'LANGGRAPH', name: 'ticket_triage', model: 'claude-3-5-sonnet-20241022', provider: 'ANTHROPIC', apiKeys: ['ANTHROPIC_API_KEY'], pii: [], frameworkAt: ['router/graph.py', 'from langgraph.prebuilt import create_react_agent'], modelAt: ['router/graph.py', 'claude-3-5-sonnet-20241022'] },
  { project: 'crewai-research', framework: 'CREWAI', name: 'Market Research Analyst', model: 'gpt-4.1', provider: 'OPENAI', apiKeys: ['OPENAI_API_KEY', 'SERPER_API_KEY'], pii: [], frameworkAt: ['src/research_crew/crew.py', 'from crewai import'], modelAt: ['src/research_crew/crew.py', 'openai/gpt-4.1'] },
  { project: 'autogen-team', framework: 'AUTOGEN', name: 'trip_planner', model: 'gpt-4-turbo', provider: 'OPENAI', apiKeys: ['OPENAI_API_KEY'], pii: ['passport'], frameworkAt: ['team.py', 'from autogen_agentchat.agents import AssistantAgent'], modelAt: ['team.py', 'model="gpt-4-turbo"'] },
  { project: 'llamaindex-clinic', framework: 'LLAMAINDEX', name: 'clinic_scheduler', model: 'mistral-large-latest', provider: 'MISTRAL', apiKeys: ['MISTRAL_API_KEY'], pii: ['date_of_birth', 'health'], frameworkAt: ['clinic_agent.py', 'from llama_index.core.agent.workflow'], modelAt: ['clinic_agent.py', 'mistral-large-latest'] },
  { project: 'openai-agents-billing', framework: 'OPENAI_AGENTS', name: 'Billing assistant', model: 'o4-mini', provider: 'OPENAI', apiKeys: ['OPENAI_API_KEY'], pii: ['credit_card', 'email'], frameworkAt: ['billing_agent.py', 'from agents import Agent'], modelAt: ['billing_agent.py', 'model="o4-mini"'] },
  { project: 'semantic-kernel-hr', framework: 'SEMANTIC_KERNEL', name: 'HrAssistant', model: 'gpt-4o', provider: 'AZURE_OPENAI', apiKeys: ['AZURE_OPENAI_API_KEY'], pii: ['date_of_birth', 'passport'], frameworkAt: ['Program.cs', 'using Microsoft.SemanticKernel;'], modelAt: ['Program.cs', 'deploymentName: "gpt-4o"'] },
  { project: 'haystack-rag', framework: 'HAYSTACK', name: 'haystack-rag', model: 'command-r-plus', provider: 'COHERE', apiKeys: ['COHERE_API_KEY'], pii: [], frameworkAt: ['pipeline.py', 'from haystack import Pipeline'], modelAt: ['pipeline.py', 'command-r-plus'] },
  { project: 'pydantic-ai-claims', framework: 'PYDANTIC_AI', name: 'pydantic-ai-claims', model: 'gemini-1.5-pro', provider: 'GOOGLE', apiKeys: ['GEMINI_API_KEY'], pii: ['date_of_birth', 'person_name', 'ssn'], frameworkAt: ['claims_agent.py', 'from pydantic_ai import Agent'], modelAt: ['claims_agent.py', 'google-gla:gemini-1.5-pro'] },
  { project: 'mastra-weather', framework: 'MASTRA', name: 'Weather Agent', model: 'gpt-4.1-mini', provider: 'OPENAI', apiKeys: [], pii: [], frameworkAt: ['src/mastra/agents/weather-agent.ts', "from '@mastra/core/agent'"], modelAt: ['src/mastra/agents/weather-agent.ts', "openai('gpt-4.1-mini')"] },
  { project: 'vercel-ai-delivery', framework: 'VERCEL_AI_SDK', name: 'vercel-ai-delivery', model: 'claude-3-5-haiku-20241022', provider: 'ANTHROPIC', apiKeys: ['ANTHROPIC_API_KEY'], pii: ['address', 'phone'], frameworkAt: ['src/agent.ts', "from 'ai'"], modelAt: ['src/agent.ts', 'claude-3-5-haiku-20241022'] },
  { project: 'google-adk-travel', framework: 'GOOGLE_ADK', name: 'travel_assistant', model: 'gemini-2.0-flash', provider: 'GOOGLE', apiKeys: ['GOOGLE_API_KEY'], pii: ['passport'], frameworkAt: ['travel_agent/agent.py', 'from google.adk.agents import Agent'], modelAt: ['travel_agent/agent.py', 'model="gemini-2.0-flash"'] },
  { project: 'smolagents-research', framework: 'SMOLAGENTS', name: 'web_researcher', model: 'Qwen/Qwen2.5-Coder-32B-Instruct', provider: 'HUGGINGFACE', apiKeys: ['HF_TOKEN'], pii: [], frameworkAt: ['run_agent.py', 'from smolagents import CodeAgent'], modelAt: ['run_agent.py', 'Qwen/Qwen2.5-Coder-32B-Instruct'] },
];

const fileLines = new Map<string, string[]>();
async function linesOf(relToFixtures: string): Promise<string[]> {
  let lines = fileLines.get(relToFixtures);
  if (!lines) {
    lines = (await readFile(path.join(FIXTURES, relToFixtures), 'utf8')).split('\n');
    fileLines.set(relToFixtures, lines);
  }
  return lines;
}

/** 1-based line of the first line of the fixture file that contains `text`. */
async function lineContaining(relToFixtures: string, text: string): Promise<number> {
  const index = (await linesOf(relToFixtures)).findIndex((l) => l.includes(text));
  expect(index, `${text} in ${relToFixtures}`).toBeGreaterThanOrEqual(0);
  return index + 1;
}

describe('code scanner over the sample projects', () => {
  let agents: FoundCodeAgent[];

  beforeAll(async () => {
    agents = await scanSourceFolders([FIXTURES]);
  });

  it('finds exactly one agent per framework project and none for the plain Flask app', () => {
    expect(agents.map((a) => a.project_path).sort()).toEqual(EXPECTED.map((e) => e.project).sort());
    expect(agents.some((a) => a.project_path.startsWith('no-agent'))).toBe(false);
  });

  it.each(EXPECTED)('$project: $framework, $model via $provider', async (exp) => {
    const agent = agents.find((a) => a.project_path === exp.project);
    expect(agent).toBeDefined();
    const a = agent!;
    expect(a.framework).toBe(exp.framework);
    expect(a.frameworks[0]).toBe(exp.framework);
    expect(a.name).toBe(exp.name);
    expect(a.external_id).toBe(`code:code-scan/${exp.project}`);
    expect(a.models).toEqual([exp.model]);
    expect(a.primary_model).toBe(exp.model);
    expect(a.model_provider).toBe(exp.provider);
    expect(a.external_llm_calls).toBe(true);
    expect(a.api_key_env_vars).toEqual(exp.apiKeys);
    expect(a.pii_hints).toEqual(exp.pii);
    expect(a.contains_pii).toBe(exp.pii.length > 0);
    expect(a.source_folder).toBe(FIXTURES);

    const [fwFile, fwText] = exp.frameworkAt;
    const fwLine = await lineContaining(`${exp.project}/${fwFile}`, fwText);
    expect(a.evidence).toContainEqual(expect.objectContaining({ kind: 'framework', file: `${exp.project}/${fwFile}`, line: fwLine }));
    const [mFile, mText] = exp.modelAt;
    const mLine = await lineContaining(`${exp.project}/${mFile}`, mText);
    expect(a.evidence).toContainEqual(expect.objectContaining({ kind: 'model', file: `${exp.project}/${mFile}`, line: mLine }));
    for (const category of exp.pii) {
      expect(a.evidence.filter((e) => e.kind === 'pii').map((e) => e.value)).toContain(category);
    }
    expect(a.evidence.filter((e) => e.kind === 'pii' && !exp.pii.includes(e.value))).toEqual([]);
  });

  it('cites every piece of evidence at a line of the fixture that holds the matched text', async () => {
    let checked = 0;
    for (const agent of agents) {
      for (const e of agent.evidence) {
        const lines = await linesOf(e.file);
        expect(lines[e.line - 1], `${e.kind} ${e.file}:${e.line}`).toContain(e.match);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('keeps the related frameworks a project also uses after the most specific one', () => {
    expect(agents.find((a) => a.project_path === 'langgraph-router')?.frameworks).toEqual(['LANGGRAPH', 'LANGCHAIN']);
    expect(agents.find((a) => a.project_path === 'mastra-weather')?.frameworks).toEqual(['MASTRA', 'VERCEL_AI_SDK']);
    expect(agents.find((a) => a.project_path === 'crewai-research')?.agent_names).toEqual(['Market Research Analyst', 'Report Writer']);
    expect(agents.find((a) => a.project_path === 'autogen-team')?.agent_names).toEqual(['trip_planner', 'critic']);
  });

  it('reports API-key variables by name and never their values', () => {
    const dump = JSON.stringify(agents);
    expect(dump).not.toContain('fake-google-key-for-tests');
    expect(dump).not.toContain('sk-proj-fixtureonly');
    const adk = agents.find((a) => a.project_path === 'google-adk-travel')!;
    expect(adk.evidence).toContainEqual({ kind: 'api_key', value: 'GOOGLE_API_KEY', file: 'google-adk-travel/travel_agent/.env', line: 2, match: 'GOOGLE_API_KEY' });
  });

  it('redacts secrets written inline before a line becomes evidence', () => {
    const line = 'from openai import OpenAI; client = OpenAI(api_key="sk-proj-abcdefghijklmnop1234", token=hf_abcdefghijkl)';
    const out = redact(line);
    expect(out).not.toContain('abcdefghijklmnop1234');
    expect(out).not.toContain('hf_abcdefghijkl');
    expect(out).toContain('from openai import OpenAI');
  });

  it('finds nothing in the plain Flask app scanned on its own', async () => {
    const result = await scanSourceFoldersWithStats([path.join(FIXTURES, 'no-agent-flask')]);
    expect(result.stats.files_scanned).toBe(2);
    expect(result.agents).toEqual([]);
  });

  it('gives the same external_ids and findings on a rescan', async () => {
    const again = await scanSourceFolders([FIXTURES]);
    expect(again.map((a) => a.external_id)).toEqual(agents.map((a) => a.external_id));
    expect(new Set(again.map((a) => a.external_id)).size).toBe(EXPECTED.length);
    expect(again).toEqual(agents);
  });
});

describe('code scanner walking a folder', () => {
  let root: string;
  let outside: string;
  const crewai = 'from crewai import Agent\n\nagent = Agent(role="Planner", goal="plan", backstory="b", llm="gpt-4o")\n';

  beforeAll(async () => {
    const base = await mkdtemp(path.join(tmpdir(), 'code-scan-'));
    root = path.join(base, 'repo');
    outside = path.join(base, 'outside');
    const files: Record<string, string> = {
      'app/main.py': crewai,
      'app/requirements.txt': 'crewai==0.86.0\n',
      'app/.env': 'OPENAI_MODEL=gpt-4o-mini\nMODEL_API_KEY=sk-secretvalue1234567890\n',
      'node_modules/pkg/agent.py': 'from langchain.agents import AgentExecutor\n',
      '.venv/lib/agent.py': 'from smolagents import CodeAgent\n',
      'env/pyvenv.cfg': 'home = /usr/bin\n',
      'env/lib/agent.py': 'from haystack import Pipeline\n',
      'dist/agent.js': "import { Agent } from '@mastra/core/agent';\n",
      'build/agent.py': 'from pydantic_ai import Agent\n',
      '__pycache__/agent.py': 'from google.adk.agents import Agent\n',
      '.git/hooks/agent.py': 'from autogen_agentchat.agents import AssistantAgent\n',
      'big/agent.py': `from langgraph.graph import StateGraph\n${'#'.repeat(2 * 1024 * 1024)}\n`,
      'manifest-only/requirements.txt': 'langchain==0.3.7\nopenai==1.50.0\n',
      'notebooks/explore.ipynb': JSON.stringify({ cells: [{ cell_type: 'code', source: ['import os\n', 'from llama_index.core.agent.workflow import FunctionAgent\n'] }] }, null, 1),
    };
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), text);
    }
    await mkdir(outside, { recursive: true });
    await writeFile(path.join(outside, 'agent.py'), 'from semantic_kernel import Kernel\n');
    await symlink(outside, path.join(root, 'linked-out'));
    await symlink(path.join(root, 'app'), path.join(root, 'linked-in'));
  });

  afterAll(async () => {
    await rm(path.dirname(root), { recursive: true, force: true });
  });

  it('skips dependency, virtualenv, build and VCS folders, large files and links out of the folder', async () => {
    const { agents, stats } = await scanSourceFoldersWithStats([root]);
    expect(agents.map((a) => [a.project_path, a.framework])).toEqual([
      ['app', 'CREWAI'],
      ['notebooks', 'LLAMAINDEX'],
    ]);
    expect(stats.files_skipped_too_large).toBe(1);
    expect(stats.truncated).toBe(false);
    // app/ is reached twice (directly and via linked-in) but read once.
    const app = agents[0]!;
    expect(app.evidence.filter((e) => e.kind === 'framework')).toEqual([
      { kind: 'framework', value: 'CREWAI', file: 'app/main.py', line: 1, match: 'from crewai import Agent' },
    ]);
    expect(app.name).toBe('Planner');
    // A model set in .env counts; a credential under a model-named key is neither a model nor shown.
    expect([...app.models].sort()).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(app.api_key_env_vars).toEqual(['MODEL_API_KEY']);
    expect(JSON.stringify(agents)).not.toContain('secretvalue');
    expect(app.external_id).toBe('code:repo/app');
    const notebook = agents[1]!;
    const nbLines = (await readFile(path.join(root, 'notebooks/explore.ipynb'), 'utf8')).split('\n');
    const fw = notebook.evidence.find((e) => e.kind === 'framework')!;
    expect(nbLines[fw.line - 1]).toContain('from llama_index.core.agent.workflow import FunctionAgent');
  });

  it('stops at the file bound and says the scan was truncated', async () => {
    const { stats } = await scanSourceFoldersWithStats([root], { maxFiles: 2 });
    expect(stats.files_scanned).toBe(2);
    expect(stats.truncated).toBe(true);
  });

  it('reports a missing folder instead of failing the whole scan', async () => {
    const missing = path.join(path.dirname(root), 'does-not-exist');
    const { agents, stats } = await scanSourceFoldersWithStats([missing, root]);
    expect(agents.map((a) => a.project_path)).toEqual(['app', 'notebooks']);
    expect(stats.errors).toEqual([expect.objectContaining({ path: missing })]);
  });
});
