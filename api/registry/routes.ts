// Bearer routes of the registry: list, get, create, patch agents, and the registry stats.
// Members read, create and edit; only admins approve (decisions §3, §5).
import { compile, pathUuid, queryBoolean, queryEnum, queryInteger, queryString, readBody } from '../../lib/http/body.ts';
import { notFound } from '../../lib/errors.ts';
import type { HttpRequest, Route } from '../../lib/http/types.ts';
import { AGENT_SORT_KEYS, listAgents, registryStats } from '../../lib/registry/queries.ts';
import { createAgent, findAgentById, updateAgent } from '../../lib/registry/store.ts';
import { AGENT_STATUSES, CreateAgentBodySchema, LIMITS, PatchAgentBodySchema, RISK_LEVELS } from '../../schemas/agents.ts';
import { getAgentTelemetry } from '../../lib/analytics/telemetry-reads.ts';
import type { ApiContext } from '../context.ts';

export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 500;

const createBody = compile(CreateAgentBodySchema);
const patchBody = compile(PatchAgentBodySchema);

export function registryRoutes(ctx: ApiContext): Route[] {
  const { db, guard } = ctx;
  return [
    {
      method: 'GET',
      pattern: '/api/v1/agents',
      async handler(request) {
        await guard.user(request);
        const agents = await listAgents(db, listFilter(request));
        return { status: 200, body: agents };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/agents/:agent_id',
      async handler(request) {
        await guard.user(request);
        const agent = await findAgentById(db, pathUuid(request, 'agent_id', 'The agent'));
        if (!agent) throw notFound('The agent');
        // The detail view adds what telemetry saw over the last 7 days (spans, errors, latency, models).
        const telemetry = await getAgentTelemetry(ctx.analytics, { agentId: agent.agent_id, days: 7, now: ctx.now() });
        return { status: 200, body: { ...agent, telemetry } };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v1/agents',
      async handler(request) {
        await guard.user(request);
        const body = readBody(request, createBody);
        const { agent } = await createAgent(db, body, { source: 'api', status: 'PENDING_REVIEW' });
        return { status: 201, headers: { location: `/api/v1/agents/${agent.agent_id}` }, body: agent };
      },
    },
    {
      method: 'PATCH',
      pattern: '/api/v1/agents/:agent_id',
      async handler(request) {
        const principal = await guard.user(request);
        const agentId = pathUuid(request, 'agent_id', 'The agent');
        const patch = readBody(request, patchBody);
        const agent = await updateAgent(db, agentId, patch, { canApprove: principal.role === 'admin' });
        return { status: 200, body: agent };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/registry/stats',
      async handler(request) {
        await guard.user(request);
        return { status: 200, body: await registryStats(db) };
      },
    },
  ];
}

function listFilter(request: HttpRequest) {
  return {
    status: queryEnum(request, 'status', AGENT_STATUSES),
    riskLevel: queryEnum(request, 'risk_level', RISK_LEVELS),
    framework: queryString(request, 'framework', LIMITS.framework),
    department: queryString(request, 'department', LIMITS.department),
    noOwner: queryBoolean(request, 'no_owner'),
    search: queryString(request, 'search', LIMITS.name),
    sortBy: queryEnum(request, 'sort_by', AGENT_SORT_KEYS, 'risk_score')!,
    sortDir: queryEnum(request, 'sort_dir', ['desc', 'asc'] as const, 'desc')!,
    limit: queryInteger(request, 'limit', LIST_LIMIT_DEFAULT, 1, LIST_LIMIT_MAX),
  };
}
