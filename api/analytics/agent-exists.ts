// Analytics reads about one agent answer 404 for an agent that is not in the registry.
import { notFound } from '../../lib/errors.ts';
import { pathUuid } from '../../lib/http/body.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import type { Database } from '../../lib/postgres/database.ts';

export async function registryAgentId(db: Database, request: HttpRequest): Promise<string> {
  const id = pathUuid(request, 'agent_id', 'The agent');
  const { rowCount } = await db.query('SELECT 1 FROM agents WHERE id = $1', [id]);
  if (!rowCount) throw notFound('The agent');
  return id;
}

/** id → name and external_id of registry agents, for labelling analytics rows. */
export async function agentLabels(db: Database, ids: readonly string[]): Promise<Map<string, { name: string; external_id: string; department: string | null }>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; name: string; external_id: string; department: string | null }>(
    'SELECT id::text AS id, name, external_id, department FROM agents WHERE id = ANY($1::uuid[])',
    [[...new Set(ids)]],
  );
  return new Map(rows.map((r) => [r.id, r]));
}
