// POST /api/v1/agents/beacon (public): an agent announces itself. Unknown agents are registered
// as PENDING_REVIEW (counted against the agent limit); known ones get their version, endpoint
// and last-seen time updated, and the framework they report is kept as an observation, so a
// disagreement with the registry shows up as a discrepancy instead of silently overwriting it.
// Beacons are rare (start-up, heartbeat), so a database round trip per beacon is fine here.
import { compile, readBody } from '../lib/http/body.ts';
import type { Route } from '../lib/http/types.ts';
import type { Database } from '../lib/postgres/database.ts';
import { toRegisteredAgent, type RegisteredAgent } from '../lib/registry/auto-register.ts';
import { normaliseFramework, type ObservationPatch } from '../lib/registry/observed.ts';
import { createAgent, findAgentByIdOrExternalId, recordObservations } from '../lib/registry/store.ts';
import { BeaconBodySchema, type BeaconAnswer } from '../schemas/agents.ts';

export interface BeaconDeps {
  db: Database;
  /** Called with every agent a beacon created or updated, e.g. to refresh an in-memory directory. */
  onAgentChanged?: (agent: RegisteredAgent) => void;
}

const beaconBody = compile(BeaconBodySchema);

export function beaconRoute(deps: BeaconDeps): Route {
  return {
    method: 'POST',
    pattern: '/api/v1/agents/beacon',
    async handler(request) {
      const body = readBody(request, beaconBody);
      const receivedAt = new Date();
      const framework = normaliseFramework(body.framework);
      const observations: ObservationPatch = {
        beacon: { framework, version: body.version ?? null, endpointUrl: body.endpoint_url ?? null },
        seenAt: receivedAt,
      };
      let agent = await findAgentByIdOrExternalId(deps.db, body.agent_id);
      let created = false;
      if (!agent) {
        // ifExists 'return': a concurrent first beacon of the same agent may have won the race.
        const result = await createAgent(
          deps.db,
          { name: body.agent_id, external_id: body.agent_id, framework, version: body.version ?? null, endpoint_url: body.endpoint_url ?? null },
          { source: 'beacon', status: 'PENDING_REVIEW', ifExists: 'return', observations },
        );
        agent = result.agent;
        created = result.created;
      }
      if (!created) agent = (await recordObservations(deps.db, agent.agent_id, observations)) ?? agent;
      deps.onAgentChanged?.(toRegisteredAgent(agent));
      const answer: BeaconAnswer = {
        agent_id: agent.agent_id,
        external_id: agent.external_id,
        status: agent.status,
        created,
        received_at: receivedAt.toISOString(),
      };
      return { status: created ? 201 : 200, body: answer };
    },
  };
}
