// The agent table with its filters, and the detail panel of one agent.
import { query } from './api.js';
import { accuracyChart, lastUtcDays } from './charts.js';
import { badge, dateTime, h, integer, money, percent, showProblem, table, tiles, yesNo } from './dom.js';

const ACCURACY_DAYS = 14;
const COST_DAYS = 30;

export function createAgentsView(api, { section, detailSection }) {
  const form = section.querySelector('#agent-filters');
  const body = section.querySelector('#agent-table tbody');
  const count = section.querySelector('#agent-count');
  const departments = section.querySelector('#department-names');
  const detailTitle = detailSection.querySelector('#detail-title');
  const detailBody = detailSection.querySelector('#detail-body');
  // Only the answer of the latest request is drawn: typing fires requests that may cross.
  let listSeq = 0;
  let detailSeq = 0;
  let openerId = null;
  let debounce;

  function filters() {
    const data = new FormData(form);
    return {
      search: data.get('search')?.trim(),
      status: data.get('status'),
      risk_level: data.get('risk_level'),
      department: data.get('department')?.trim(),
      no_owner: data.get('no_owner') ? 'true' : '',
      sort_by: data.get('sort_by'),
      sort_dir: data.get('sort_dir'),
    };
  }

  async function load() {
    const seq = ++listSeq;
    section.setAttribute('aria-busy', 'true');
    try {
      const agents = await api.get(`/api/v1/agents${query(filters())}`);
      if (seq !== listSeq) return;
      showProblem(section, null);
      render(agents);
    } catch (error) {
      if (seq === listSeq) showProblem(section, error);
    } finally {
      if (seq === listSeq) section.removeAttribute('aria-busy');
    }
  }

  function render(agents) {
    count.textContent = agents.length === 1 ? '1 agent' : `${agents.length} agents`;
    const known = new Set([...departments.options].map((o) => o.value));
    for (const agent of agents) {
      if (agent.department && !known.has(agent.department)) {
        known.add(agent.department);
        departments.append(h('option', { value: agent.department }));
      }
    }
    if (agents.length === 0) {
      body.replaceChildren(h('tr', null, h('td', { colspan: 8, class: 'muted' }, 'No agent matches these filters.')));
      return;
    }
    body.replaceChildren(...agents.map(row));
  }

  function row(agent) {
    const open = h('button', { type: 'button', class: 'link', onclick: () => openAgent(agent.agent_id) }, agent.name);
    return h('tr', { dataset: { agentId: agent.agent_id } },
      h('th', { scope: 'row' }, open, h('div', { class: 'muted small' }, agent.external_id)),
      h('td', null, agent.framework),
      h('td', null, badge(agent.status, 'status')),
      h('td', null, badge(agent.risk_level, 'risk')),
      h('td', { class: 'num' }, String(agent.risk_score)),
      h('td', null, agent.owner_email ?? h('span', { class: 'muted' }, 'no owner')),
      h('td', null, agent.department ?? h('span', { class: 'muted' }, '–')),
      h('td', { class: 'num' }, String(agent.discrepancies.length)));
  }

  async function openAgent(agentId) {
    const seq = ++detailSeq;
    openerId = agentId;
    detailSection.hidden = false;
    detailSection.setAttribute('aria-busy', 'true');
    detailTitle.textContent = 'Loading agent…';
    detailBody.replaceChildren();
    showProblem(detailSection, null);
    const id = encodeURIComponent(agentId);
    try {
      const [agent, accuracy, cost] = await Promise.all([
        api.get(`/api/v1/agents/${id}`),
        api.get(`/api/v1/agents/${id}/accuracy?days=${ACCURACY_DAYS}`),
        api.get(`/api/v1/costs/agents/${id}?days=${COST_DAYS}`),
      ]);
      if (seq !== detailSeq) return;
      detailTitle.textContent = agent.name;
      detailBody.replaceChildren(...renderDetail(agent, accuracy, cost));
    } catch (error) {
      if (seq === detailSeq) {
        detailTitle.textContent = 'Agent';
        showProblem(detailSection, error);
      }
    } finally {
      if (seq === detailSeq) detailSection.removeAttribute('aria-busy');
    }
    detailTitle.focus();
  }

  function closeDetail() {
    detailSection.hidden = true;
    detailBody.replaceChildren();
    // Keyboard users land back on the row they came from.
    const opener = openerId && body.querySelector(`tr[data-agent-id="${CSS.escape(openerId)}"] button`);
    if (opener) opener.focus();
  }

  detailSection.querySelector('#detail-close').addEventListener('click', closeDetail);
  detailSection.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closeDetail();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    load();
  });
  form.addEventListener('change', () => load());
  form.addEventListener('input', (event) => {
    if (event.target.type !== 'search' && event.target.id !== 'filter-department') return;
    clearTimeout(debounce);
    debounce = setTimeout(load, 250);
  });
  // The reset event fires before the fields are cleared.
  form.addEventListener('reset', () => setTimeout(load, 0));

  return { load, openAgent };
}

function renderDetail(agent, accuracy, cost) {
  return [
    h('p', { class: 'detail-badges' }, badge(agent.status, 'status'), ' ', badge(agent.risk_level, 'risk'), ' ', h('span', { class: 'muted' }, `risk score ${agent.risk_score}`)),
    h('div', { class: 'detail-grid' },
      h('div', null,
        h('h3', null, 'Facts'),
        facts([
          ['External id', agent.external_id],
          ['Framework', agent.framework],
          ['Owner', agent.owner_email ?? 'no owner'],
          ['Department', agent.department ?? '–'],
          ['Primary model', agent.primary_model ?? '–'],
          ['Provider', agent.model_provider ?? '–'],
          ['Source', agent.source],
          ['Handles PII', yesNo(agent.contains_pii)],
          ['External LLM calls', yesNo(agent.external_llm_calls)],
          ['Writes to systems', yesNo(agent.writes_to_systems)],
          ['Human in the loop', yesNo(agent.hitl_required)],
          ['Endpoint reachable', yesNo(agent.probe_reachable)],
          ['Last seen', dateTime(agent.last_seen_at)],
        ])),
      h('div', null,
        h('h3', null, 'Risk factors'),
        agent.risk_factors.length === 0
          ? h('p', { class: 'muted' }, 'None.')
          : h('ul', { class: 'risk-factors' }, agent.risk_factors.map((f) => h('li', null, h('strong', null, `+${f.points} `), f.detail || f.factor))),
        h('h3', null, 'Discrepancies'),
        agent.discrepancies.length === 0
          ? h('p', { class: 'muted' }, 'None: what the agent does matches what was declared.')
          : h('ul', { class: 'discrepancies' }, agent.discrepancies.map((d) => h('li', null, h('strong', null, d.kind.replace(/_/g, ' ')), ': ', d.detail))),
        telemetry(agent.telemetry))),
    h('h3', null, `Accuracy, last ${ACCURACY_DAYS} days`),
    accuracyBlock(accuracy),
    h('h3', null, `Cost, last ${COST_DAYS} days`),
    costBlock(cost),
  ];
}

function facts(pairs) {
  return h('dl', { class: 'facts' }, pairs.flatMap(([label, value]) => [h('dt', null, label), h('dd', null, value)]));
}

function telemetry(t) {
  if (!t) return null;
  return [
    h('h3', null, `Telemetry, last ${t.period_days} days`),
    facts([
      ['Spans', integer(t.spans)],
      ['Errors', `${integer(t.errors)} (${percent(t.error_rate, 1)})`],
      ['Latency p50 / p95', t.latency_ms ? `${Math.round(t.latency_ms.p50)} ms / ${Math.round(t.latency_ms.p95)} ms` : '–'],
      ['Tokens in / out', `${integer(t.input_tokens)} / ${integer(t.output_tokens)}`],
      ['Telemetry cost', money(t.telemetry_cost_usd, 'USD')],
      ['Models', t.models.length ? t.models.map((m) => m.model).join(', ') : '–'],
      ['Last span', dateTime(t.last_span_at)],
    ]),
  ];
}

function accuracyBlock(rows) {
  if (rows.length === 0) return h('p', { class: 'muted', id: 'accuracy-empty' }, 'No quality signals in this period.');
  const days = lastUtcDays(ACCURACY_DAYS);
  const { svg, colours } = accuracyChart(rows, days, { label: `Daily pass rate per check over the last ${ACCURACY_DAYS} days; triangles mark degrading (down) and improving (up) days` });
  const sorted = [...rows].sort((a, b) => b.agg_date.localeCompare(a.agg_date) || a.check_id.localeCompare(b.check_id));
  const legend = h('ul', { class: 'legend' }, [...colours].map(([check, colour]) => h('li', null, h('span', { class: 'swatch', style: { backgroundColor: colour } }), check)));
  return h('div', { id: 'accuracy' },
    h('figure', { class: 'chart' }, svg, h('figcaption', null, legend)),
    table('Daily accuracy per check', ['Day', 'Check', 'Severity', { label: 'Runs', numeric: true }, { label: 'Passed', numeric: true }, { label: 'Pass rate', numeric: true }, 'Trend'],
      sorted.map((r) => [r.agg_date, r.check_id, r.severity, integer(r.total_runs), integer(r.passed_runs), percent(r.pass_rate, 1), badge(r.trend, 'trend')]),
      { id: 'accuracy-table', class: 'compact' }));
}

function costBlock(cost) {
  const currency = cost.display_currency;
  return h('div', { id: 'agent-cost' },
    h('dl', { class: 'tiles' }, tiles([
      { key: 'agent-cost-usd', label: 'Spend (USD)', value: money(cost.cost_usd, 'USD'), raw: cost.cost_usd },
      { key: 'agent-cost-display', label: `Spend (${currency})`, value: money(cost.cost_display, currency), raw: cost.cost_display },
      { key: 'agent-cost-events', label: 'Cost events', value: integer(cost.events), raw: cost.events },
      { key: 'agent-cost-tokens', label: 'Tokens in / out', value: `${integer(cost.input_tokens)} / ${integer(cost.output_tokens)}` },
    ])),
    cost.by_model.length === 0
      ? h('p', { class: 'muted' }, 'No cost events in this period.')
      : table('Spend per model', ['Model', { label: 'Events', numeric: true }, { label: 'Input tokens', numeric: true }, { label: 'Output tokens', numeric: true }, { label: 'USD', numeric: true }, { label: currency, numeric: true }],
        cost.by_model.map((m) => [m.model, integer(m.events), integer(m.input_tokens), integer(m.output_tokens), money(m.cost_usd, 'USD'), money(m.cost_display, currency)]),
        { id: 'agent-cost-models', class: 'compact' }));
}
