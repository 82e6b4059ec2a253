// The instance's agent limit (instance_settings.agent_limit). Every creation path takes this
// lock inside its creating transaction, so concurrent creations cannot both see room for one.
import { AppError } from '../errors.ts';
import type { Queryable } from '../postgres/database.ts';

export const agentLimitReached = (limit: number): AppError =>
  new AppError({
    code: 'agent_limit_reached',
    status: 403,
    detail: `This instance is limited to ${limit} agents and has reached the limit; raise the limit or remove agents, then retry.`,
  });

/**
 * Locks the settings row (held until the caller's transaction ends) and returns the limit.
 * Must run inside a transaction: outside one the lock would be released at once.
 */
export async function lockAgentLimit(tx: Queryable): Promise<number> {
  const settings = await tx.query<{ agent_limit: number }>('SELECT agent_limit FROM instance_settings WHERE id = 1 FOR UPDATE');
  const limit = settings.rows[0]?.agent_limit;
  if (limit === undefined) throw new Error('instance_settings row is missing: migrations did not run');
  return limit;
}

/** Throws 403 `agent_limit_reached` when fewer than `adding` places are left. Call after lockAgentLimit. */
export async function checkAgentLimit(tx: Queryable, limit: number, adding = 1): Promise<number> {
  const { rows } = await tx.query<{ count: number }>('SELECT count(*)::int AS count FROM agents');
  const count = rows[0]!.count;
  if (count + adding > limit) throw agentLimitReached(limit);
  return count;
}

/** Both steps, for a creation path that has nothing to check in between. */
export async function lockAndCheckAgentLimit(tx: Queryable, adding = 1): Promise<{ limit: number; count: number }> {
  const limit = await lockAgentLimit(tx);
  return { limit, count: await checkAgentLimit(tx, limit, adding) };
}
