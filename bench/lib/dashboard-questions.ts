// The dashboard's questions, each answerable three ways: the shipped read function on the store
// (views), the same function on a store without views (raw tables, bench/dashboard-raw.ts), and
// the HTTP route of the service. Rotating arguments (which agent) come from the call number.
import { getCostSummary, getDepartmentSpend } from '../../lib/analytics/cost-reads.ts';
import { getAccuracy, getHeatmap } from '../../lib/analytics/quality.ts';
import type { AnalyticsStore } from '../../lib/analytics/store.ts';
import { monthStart } from '../../lib/analytics/time.ts';
import type { Database } from '../../lib/postgres/database.ts';
import { listAgents, type AgentListFilter } from '../../lib/registry/queries.ts';
import { agentUuid } from './bench-data.ts';

export interface Question {
  id: string;
  label: string;
  /** Answered by ClickHouse (has a no-views variant); false: PostgreSQL only. */
  analytics: boolean;
  direct(ctx: { store: AnalyticsStore; db: Database; now: Date }, call: number): Promise<unknown>;
  httpPath(call: number): string;
}

/** Ten agents spread over the skew: agent 0 is the busiest, the last the quietest. */
export function sampleAgents(agents: number): string[] {
  return Array.from({ length: 10 }, (_, k) => agentUuid(Math.floor((k * agents) / 10)));
}

const FINANCE_APPROVED: AgentListFilter = { department: 'Finance', status: 'APPROVED', sortBy: 'risk_score', sortDir: 'desc', limit: 50 };
const SEARCH_HIGH: AgentListFilter = { search: 'claims agent 1', riskLevel: 'HIGH', sortBy: 'name', sortDir: 'asc', limit: 50 };

export function dashboardQuestions(agents: number): Question[] {
  const sample = sampleAgents(agents);
  return [
    {
      id: 'heatmap_30d',
      label: 'Heatmap, 30 days, every agent and check',
      analytics: true,
      direct: ({ store, now }) => getHeatmap(store, { windowDays: 30, now }),
      httpPath: () => '/api/v1/optimise/heatmap?window_days=30',
    },
    {
      id: 'accuracy_30d',
      label: 'Accuracy of one agent, 30 days (10 agents in turn)',
      analytics: true,
      direct: ({ store, now }, i) => getAccuracy(store, { agentId: sample[i % sample.length]!, days: 30, now }),
      httpPath: (i) => `/api/v1/agents/${sample[i % sample.length]}/accuracy?days=30`,
    },
    {
      id: 'cost_summary_30d',
      label: 'Cost summary, 30 days',
      analytics: true,
      direct: ({ store, now }) => getCostSummary(store, { days: 30, now }),
      httpPath: () => '/api/v1/costs/summary?days=30',
    },
    {
      id: 'department_costs',
      label: 'Department spend, this month',
      analytics: true,
      direct: ({ store, now }) => getDepartmentSpend(store, { fromMonth: monthStart(now), toMonth: monthStart(now) }),
      httpPath: () => '/api/v1/costs/departments',
    },
    {
      id: 'agent_list_department',
      label: 'Agent list: department + status, by risk, 50 (PostgreSQL)',
      analytics: false,
      direct: ({ db }) => listAgents(db, FINANCE_APPROVED),
      httpPath: () => '/api/v1/agents?department=Finance&status=APPROVED&sort_by=risk_score&sort_dir=desc&limit=50',
    },
    {
      id: 'agent_list_search',
      label: 'Agent list: search + risk level, by name, 50 (PostgreSQL)',
      analytics: false,
      direct: ({ db }) => listAgents(db, SEARCH_HIGH),
      httpPath: () => '/api/v1/agents?search=claims%20agent%201&risk_level=HIGH&sort_by=name&sort_dir=asc&limit=50',
    },
  ];
}
