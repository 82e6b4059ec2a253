// Registration of agents that announce themselves by sending data (decisions §2): the first
// quality signal of an unknown agent registers it as DISCOVERED, counted against the agent limit.
import type { Agent, AgentStatus } from '../../schemas/agents.ts';
import type { Database } from '../postgres/database.ts';
import { createAgent, findAgentByIdOrExternalId } from './store.ts';

/** The slice of an agent the ingest tier keeps in memory. */
export interface RegisteredAgent {
  id: string;
  external_id: string;
  department: string | null;
  status: AgentStatus;
}

/** Signals carry no framework; the agent keeps this until someone declares one. */
export const UNKNOWN_FRAMEWORK = 'UNKNOWN';

export function toRegisteredAgent(agent: Agent): RegisteredAgent {
  return { id: agent.agent_id, external_id: agent.external_id, department: agent.department, status: agent.status };
}

/**
 * Resolves a textual id (uuid first, then external_id) or registers it: name and external_id
 * are the textual id, status DISCOVERED, source 'signal'. Throws 403 `agent_limit_reached` at
 * the limit (nothing stored). Safe under concurrency: two first signals make one agent.
 */
export async function registerSignalAgent(db: Database, textualId: string): Promise<RegisteredAgent> {
  const found = await findAgentByIdOrExternalId(db, textualId);
  if (found) return toRegisteredAgent(found);
  const { agent } = await createAgent(
    db,
    { name: textualId, external_id: textualId, framework: UNKNOWN_FRAMEWORK },
    { source: 'signal', status: 'DISCOVERED', ifExists: 'return', observations: { seenAt: new Date() } },
  );
  return toRegisteredAgent(agent);
}
