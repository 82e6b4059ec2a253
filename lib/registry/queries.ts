// Reads over many agents: the filtered list, the stats, and the directory that the ingest tier
// keeps in memory to resolve agents without a database round trip per event.
import type { Agent, AgentStatus, RegistryStats, RiskLevel } from '../../schemas/agents.ts';
import type { Queryable } from '../postgres/database.ts';
import { AGENT_COLUMNS, fromDatabase, toAgent } from './agent-row.ts';
import { normaliseFramework } from './observed.ts';

export const AGENT_SORT_KEYS = ['risk_score', 'name', 'created_at'] as const;
export type AgentSortKey = (typeof AGENT_SORT_KEYS)[number];

export interface AgentListFilter {
  status?: AgentStatus;
  riskLevel?: RiskLevel;
  /** Compared upper-cased, as stored. */
  framework?: string;
  /** Case-insensitive equality. */
  department?: string;
  /** true: only agents without owner_email. false or absent: no filter. */
  noOwner?: boolean;
  /** Substring of name or external_id, case-insensitive; % and _ match themselves. */
  search?: string;
  sortBy: AgentSortKey;
  sortDir: 'asc' | 'desc';
  limit: number;
}

const SORT_EXPRESSIONS: Record<AgentSortKey, string> = {
  risk_score: 'risk_score',
  name: 'lower(name)',
  created_at: 'created_at',
};

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export async function listAgents(db: Queryable, filter: AgentListFilter): Promise<Agent[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (filter.status) where.push(`status = ${param(filter.status)}`);
  if (filter.riskLevel) where.push(`risk_level = ${param(filter.riskLevel)}`);
  if (filter.framework) where.push(`framework = ${param(normaliseFramework(filter.framework))}`);
  if (filter.department) where.push(`lower(department) = lower(${param(filter.department)})`);
  if (filter.noOwner) where.push('owner_email IS NULL');
  if (filter.search) {
    const pattern = param(`%${escapeLike(filter.search)}%`);
    where.push(`(name ILIKE ${pattern} ESCAPE '\\' OR external_id ILIKE ${pattern} ESCAPE '\\')`);
  }
  // Only whitelisted expressions reach the SQL text; the id tiebreak (same direction) makes
  // pages stable and asc the exact reverse of desc.
  const dir = filter.sortDir === 'asc' ? 'ASC' : 'DESC';
  const sql = `SELECT ${AGENT_COLUMNS} FROM agents
    ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY ${SORT_EXPRESSIONS[filter.sortBy]} ${dir}, id ${dir}
    LIMIT ${param(filter.limit)}`;
  const { rows } = await db.query(sql, params);
  return rows.map((r) => toAgent(fromDatabase(r)));
}

export async function registryStats(db: Queryable): Promise<RegistryStats> {
  const { rows } = await db.query<RegistryStats>(`SELECT
      count(*)::int AS total,
      count(*) FILTER (WHERE status = 'APPROVED')::int AS approved,
      count(*) FILTER (WHERE risk_level = 'CRITICAL')::int AS critical,
      count(*) FILTER (WHERE risk_level = 'HIGH')::int AS high,
      count(*) FILTER (WHERE risk_level = 'MEDIUM')::int AS medium,
      count(*) FILTER (WHERE risk_level = 'LOW')::int AS low,
      count(*) FILTER (WHERE owner_email IS NULL)::int AS no_owner,
      count(*) FILTER (WHERE jsonb_array_length(discrepancies) > 0)::int AS has_discrepancies
    FROM agents`);
  return rows[0]!;
}

/** What the ingest tier needs to resolve and attribute an event to an agent. */
export interface DirectoryEntry {
  id: string;
  external_id: string;
  department: string | null;
  status: AgentStatus;
  updated_at: string;
}

const DIRECTORY_COLUMNS = 'id, external_id, department, status, updated_at';
const toEntry = (r: Record<string, unknown>): DirectoryEntry => ({
  id: r.id as string,
  external_id: r.external_id as string,
  department: (r.department as string | null) ?? null,
  status: r.status as AgentStatus,
  updated_at: (r.updated_at as Date).toISOString(),
});

export async function listAgentsForDirectory(db: Queryable): Promise<DirectoryEntry[]> {
  const { rows } = await db.query(`SELECT ${DIRECTORY_COLUMNS} FROM agents`);
  return rows.map(toEntry);
}

/**
 * Agents changed after `since` (an updated_at or cursor from an earlier call), plus a cursor
 * for the next call. updated_at is the writing transaction's start time, so a slow writer can
 * commit a time that is already behind a reader's cursor: we re-read an overlap window, and
 * the caller's cache must treat entries as upserts keyed by id (renamed external_ids included).
 */
export async function listAgentsChangedSince(
  db: Queryable,
  since: string | null,
  overlapSeconds = 30,
): Promise<{ agents: DirectoryEntry[]; cursor: string | null }> {
  if (since === null) {
    const agents = await listAgentsForDirectory(db);
    return { agents, cursor: maxUpdatedAt(agents, null) };
  }
  const { rows } = await db.query(
    `SELECT ${DIRECTORY_COLUMNS} FROM agents WHERE updated_at > $1::timestamptz - make_interval(secs => $2) ORDER BY updated_at`,
    [since, overlapSeconds],
  );
  const agents = rows.map(toEntry);
  return { agents, cursor: maxUpdatedAt(agents, since) };
}

function maxUpdatedAt(agents: DirectoryEntry[], fallback: string | null): string | null {
  let max = fallback;
  for (const a of agents) if (max === null || Date.parse(a.updated_at) > Date.parse(max)) max = a.updated_at;
  return max;
}
