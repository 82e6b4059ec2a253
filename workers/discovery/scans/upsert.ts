// Writes one found agent into the registry: created as DISCOVERED (source `discovery`) when its
// external_id is new, otherwise updated, never duplicated. Both in one transaction that holds
// the row lock, so risk is recomputed from exactly what is stored.
//
// Declared fields on a rescan: discovery only refreshes the values it suggested itself and that
// nobody has changed since (a three-way merge against `observed.discovery_declared`). An agent
// someone else registered keeps its declared fields; only its discovery evidence changes.
import { AppError } from '../../../lib/errors.ts';
import type { Database, Queryable } from '../../../lib/postgres/database.ts';
import { AGENT_COLUMNS, WRITABLE_COLUMNS, fromDatabase, reassess, writeParams, type AgentRow } from '../../../lib/registry/agent-row.ts';
import { normaliseFramework, type ObservationPatch } from '../../../lib/registry/observed.ts';
import { createAgentInTransaction } from '../../../lib/registry/store.ts';
import { LIMITS } from '../../../schemas/agents.ts';
import type { ScanAgentAction } from '../../../schemas/discovery.ts';
import { mergeDiscovery, type Finding } from './evidence.ts';

/** What discovery believes the agent declares; written only where discovery owns the value. */
export interface DeclaredGuess {
  name: string;
  framework: string;
  primary_model?: string | null;
  model_provider?: string | null;
  contains_pii?: boolean;
  external_llm_calls?: boolean;
}

export interface FoundAgent {
  external_id: string;
  declared: DeclaredGuess;
  /** Applied when the agent is created only: counts would grow on every rescan otherwise. */
  observations?: ObservationPatch;
  /** When the agent was last active (last cost event, last span); moves last_seen_at forward. */
  seenAt?: Date;
  finding: Finding;
}

export interface UpsertOutcome {
  action: ScanAgentAction;
  agent_id: string | null;
  name: string;
  framework: string;
  reason?: string;
}

type Declared = Record<string, string | boolean | null>;

const UPDATE_SQL = `UPDATE agents SET ${WRITABLE_COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(', ')}, updated_at = now()
  WHERE id = $1 RETURNING id`;

export function upsertFoundAgent(db: Database, found: FoundAgent, now: Date): Promise<UpsertOutcome> {
  const declared = normalised(found.declared);
  return db.transaction(async (tx) => {
    let row = await lockByExternalId(tx, found.external_id);
    let created = false;
    if (!row) {
      try {
        const result = await createAgentInTransaction(
          tx,
          { ...(declared as unknown as DeclaredGuess), external_id: found.external_id },
          { source: 'discovery', status: 'DISCOVERED', ifExists: 'return', observations: { ...found.observations, seenAt: found.seenAt } },
        );
        created = result.created;
      } catch (error) {
        // The limit is a normal outcome of a scan, reported per agent; the scan goes on.
        if (error instanceof AppError && error.status < 500) {
          return { action: 'not_created', agent_id: null, name: declared.name as string, framework: declared.framework as string, reason: error.code };
        }
        throw error;
      }
      row = await lockByExternalId(tx, found.external_id);
      if (!row) throw new Error(`agent ${found.external_id} vanished inside its creating transaction`);
    }
    const next = refreshed(row, declared, found, created, now);
    await tx.query(UPDATE_SQL, [row.id, ...writeParams(reassess(next))]);
    return { action: created ? 'created' : 'updated', agent_id: row.id, name: next.name, framework: next.framework };
  });
}

async function lockByExternalId(tx: Queryable, externalId: string): Promise<AgentRow | undefined> {
  const { rows } = await tx.query(`SELECT ${AGENT_COLUMNS} FROM agents WHERE external_id = $1 FOR UPDATE`, [externalId]);
  return rows[0] ? fromDatabase(rows[0]) : undefined;
}

function refreshed(row: AgentRow, declared: Declared, found: FoundAgent, created: boolean, now: Date): AgentRow {
  const next: AgentRow = { ...row };
  const record = next as unknown as Record<string, unknown>;
  const previous = row.observed.discovery_declared;
  let suggested: Declared | undefined;
  if (created) {
    suggested = declared;
  } else if (previous) {
    // Only an agent discovery created has a snapshot; there, fields still as discovery left them follow the code.
    suggested = { ...previous, ...declared };
    for (const [field, value] of Object.entries(declared)) {
      if (field in previous && record[field] === previous[field]) record[field] = value;
    }
  }
  next.observed = {
    ...row.observed,
    discovery: mergeDiscovery(row.observed.discovery, found.finding, now),
    ...(suggested ? { discovery_declared: suggested } : {}),
  };
  if (found.seenAt && (!row.last_seen_at || found.seenAt > row.last_seen_at)) next.last_seen_at = found.seenAt;
  return next;
}

/** The stored form of each guessed field, so that comparisons with the row are exact. */
function normalised(guess: DeclaredGuess): Declared {
  const out: Declared = {
    name: guess.name.trim().slice(0, LIMITS.name) || 'unnamed agent',
    framework: normaliseFramework(guess.framework).slice(0, LIMITS.framework) || 'UNKNOWN',
  };
  if (guess.primary_model !== undefined) out.primary_model = guess.primary_model?.slice(0, LIMITS.model) ?? null;
  if (guess.model_provider !== undefined) out.model_provider = guess.model_provider?.slice(0, LIMITS.provider) ?? null;
  if (guess.contains_pii !== undefined) out.contains_pii = guess.contains_pii;
  if (guess.external_llm_calls !== undefined) out.external_llm_calls = guess.external_llm_calls;
  return out;
}
