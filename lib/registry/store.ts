// Writes and point reads of registry agents, shared by the api (CRUD), ingest (beacons,
// signals) and discovery. Every creation goes through createAgentInTransaction (the agent
// limit); every write recomputes risk and discrepancies from the row it is about to store.
import type { Agent, AgentSource, AgentStatus } from '../../schemas/agents.ts';
import { AppError, notFound } from '../errors.ts';
import { UUID_PATTERN } from '../http/body.ts';
import type { Database, Queryable } from '../postgres/database.ts';
import { AGENT_COLUMNS, WRITABLE_COLUMNS, fromDatabase, reassess, toAgent, writeParams, type AgentRow } from './agent-row.ts';
import { checkAgentLimit, lockAgentLimit } from './agent-limit.ts';
import { mergeObservations, normaliseFramework, type ObservationPatch } from './observed.ts';
import { checkTransition } from './transitions.ts';

/** Declared fields of a new agent; only name and framework are required (decisions §5). */
export interface NewAgent {
  name: string;
  framework: string;
  /** Defaults to the name. */
  external_id?: string;
  owner_email?: string | null;
  department?: string | null;
  contains_pii?: boolean;
  external_llm_calls?: boolean;
  writes_to_systems?: boolean;
  hitl_required?: boolean;
  primary_model?: string | null;
  model_provider?: string | null;
  endpoint_url?: string | null;
  description?: string | null;
  version?: string | null;
}

export interface CreateAgentOptions {
  source: AgentSource;
  status: AgentStatus;
  /** `conflict` (default): 409 `external_id_taken`. `return`: the existing agent, created false, nothing written. */
  ifExists?: 'conflict' | 'return';
  /** Observed at creation (a beacon's framework, a signal's model...). */
  observations?: ObservationPatch;
}

export interface CreateAgentResult {
  agent: Agent;
  created: boolean;
}

/** Any declared field, plus status; undefined leaves a field as it is, null clears it. */
export type AgentPatch = Partial<Omit<NewAgent, 'name' | 'framework'>> & { name?: string; framework?: string; status?: AgentStatus };

const externalIdTaken = (externalId: string): AppError =>
  new AppError({
    code: 'external_id_taken',
    status: 409,
    detail: `Another agent already has the external_id "${externalId}".`,
    errors: [{ path: '/external_id', message: 'is already taken' }],
  });

const INSERT_SQL = `INSERT INTO agents (source, ${WRITABLE_COLUMNS.join(', ')})
  VALUES ($1, ${WRITABLE_COLUMNS.map((_, i) => `$${i + 2}`).join(', ')})
  ON CONFLICT (external_id) DO NOTHING
  RETURNING ${AGENT_COLUMNS}`;

const UPDATE_SQL = `UPDATE agents SET ${WRITABLE_COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(', ')}, updated_at = now()
  WHERE id = $1 RETURNING ${AGENT_COLUMNS}`;

/** Creates an agent in its own transaction. Throws 403 `agent_limit_reached` at the limit. */
export function createAgent(db: Database, input: NewAgent, options: CreateAgentOptions): Promise<CreateAgentResult> {
  return db.transaction((tx) => createAgentInTransaction(tx, input, options));
}

/** For callers that already hold a transaction (BEGIN issued): the limit lock joins it. */
export async function createAgentInTransaction(tx: Queryable, input: NewAgent, options: CreateAgentOptions): Promise<CreateAgentResult> {
  const externalId = input.external_id ?? input.name;
  const existing = () => tx.query(`SELECT ${AGENT_COLUMNS} FROM agents WHERE external_id = $1`, [externalId]);
  // Checked after the lock so that two creations of one agent (two first beacons) meet here.
  const limit = await lockAgentLimit(tx);
  if (options.ifExists === 'return') {
    const found = await existing();
    if (found.rows[0]) return { agent: toAgent(fromDatabase(found.rows[0])), created: false };
  }
  await checkAgentLimit(tx, limit);
  const now = new Date();
  const patch = options.observations ?? {};
  const row = reassess({
    external_id: externalId,
    name: input.name,
    framework: normaliseFramework(input.framework),
    status: options.status,
    risk_score: 0,
    risk_level: 'LOW' as const,
    risk_factors: [],
    discrepancies: [],
    owner_email: input.owner_email ?? null,
    department: input.department ?? null,
    contains_pii: input.contains_pii ?? false,
    external_llm_calls: input.external_llm_calls ?? false,
    writes_to_systems: input.writes_to_systems ?? false,
    hitl_required: input.hitl_required ?? false,
    primary_model: input.primary_model ?? null,
    model_provider: input.model_provider ?? null,
    endpoint_url: input.endpoint_url ?? null,
    version: input.version ?? null,
    description: input.description ?? null,
    observed: mergeObservations({}, patch, now),
    probe_reachable: patch.probe?.reachable ?? null,
    probe_tls_valid: patch.probe?.tlsValid ?? null,
    last_seen_at: patch.seenAt ?? null,
  });
  const inserted = await tx.query(INSERT_SQL, [options.source, ...writeParams(row)]);
  if (inserted.rows[0]) return { agent: toAgent(fromDatabase(inserted.rows[0])), created: true };
  // Only a PATCH renaming an external_id can slip in between the check and the insert.
  if (options.ifExists === 'return') {
    const found = await existing();
    if (found.rows[0]) return { agent: toAgent(fromDatabase(found.rows[0])), created: false };
  }
  throw externalIdTaken(externalId);
}

export async function findAgentById(db: Queryable, agentId: string): Promise<Agent | undefined> {
  if (!UUID_PATTERN.test(agentId)) return undefined;
  const { rows } = await db.query(`SELECT ${AGENT_COLUMNS} FROM agents WHERE id = $1`, [agentId]);
  return rows[0] ? toAgent(fromDatabase(rows[0])) : undefined;
}

/** Decisions §2: a uuid of a registry agent first, then an external_id. One round trip. */
export async function findAgentByIdOrExternalId(db: Queryable, textualId: string): Promise<Agent | undefined> {
  const { rows } = UUID_PATTERN.test(textualId)
    ? await db.query(`SELECT ${AGENT_COLUMNS} FROM agents WHERE id = $1::uuid OR external_id = $2 ORDER BY (id = $1::uuid) DESC LIMIT 1`, [
        textualId.toLowerCase(),
        textualId,
      ])
    : await db.query(`SELECT ${AGENT_COLUMNS} FROM agents WHERE external_id = $1`, [textualId]);
  return rows[0] ? toAgent(fromDatabase(rows[0])) : undefined;
}

/** Applies a partial update of declared fields and/or status. 404, 403, 409, 422 as AppError. */
export function updateAgent(db: Database, agentId: string, patch: AgentPatch, actor: { canApprove: boolean }): Promise<Agent> {
  return db.transaction(async (tx) => {
    const current = await lockRow(tx, agentId);
    if (!current) throw notFound('The agent');
    if (patch.status !== undefined) checkTransition(current.status, patch.status, actor.canApprove);
    const next: AgentRow = { ...current };
    for (const key of Object.keys(patch) as Array<keyof AgentPatch>) {
      if (patch[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = patch[key];
    }
    next.framework = normaliseFramework(next.framework);
    if (next.endpoint_url !== current.endpoint_url) resetProbe(next);
    return write(tx, next);
  });
}

/**
 * Merges observed facts (models with counts, failing checks, beacon, telemetry, probe) into
 * the agent and recomputes risk and discrepancies. undefined when the agent does not exist.
 * One transaction per call: callers on a hot path aggregate first (one call per agent per batch).
 */
export function recordObservations(db: Database, agentId: string, patch: ObservationPatch): Promise<Agent | undefined> {
  return db.transaction(async (tx) => {
    const current = await lockRow(tx, agentId);
    if (!current) return undefined;
    const now = new Date();
    const next: AgentRow = { ...current, observed: mergeObservations(current.observed, patch, now) };
    if (patch.beacon) {
      if (patch.beacon.version !== undefined && patch.beacon.version !== null) next.version = patch.beacon.version;
      if (patch.beacon.endpointUrl) next.endpoint_url = patch.beacon.endpointUrl;
      if (next.endpoint_url !== current.endpoint_url) resetProbe(next);
    }
    if (patch.probe) {
      next.probe_reachable = patch.probe.reachable;
      next.probe_tls_valid = patch.probe.tlsValid;
    }
    if (patch.seenAt && (!current.last_seen_at || patch.seenAt > current.last_seen_at)) next.last_seen_at = patch.seenAt;
    return write(tx, next);
  });
}

async function lockRow(tx: Queryable, agentId: string): Promise<AgentRow | undefined> {
  if (!UUID_PATTERN.test(agentId)) return undefined;
  const { rows } = await tx.query(`SELECT ${AGENT_COLUMNS} FROM agents WHERE id = $1 FOR UPDATE`, [agentId]);
  return rows[0] ? fromDatabase(rows[0]) : undefined;
}

/** Probe results describe the old URL; the endpoint scanner probes the new one. */
function resetProbe(row: AgentRow): void {
  row.probe_reachable = null;
  row.probe_tls_valid = null;
}

async function write(tx: Queryable, row: AgentRow): Promise<Agent> {
  const assessed = reassess(row);
  try {
    const { rows } = await tx.query(UPDATE_SQL, [row.id, ...writeParams(assessed)]);
    return toAgent(fromDatabase(rows[0]!));
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw externalIdTaken(row.external_id);
    throw error;
  }
}
