// The pass-rate heatmap: agents down, checks across, each cell coloured by its pass rate over
// the window and also labelled with it (colour is never the only carrier of the figure).
import { query } from './api.js';
import { h, integer, passRateColour, percent, showProblem } from './dom.js';

const WINDOW_DAYS = 7;

export function createHeatmapView(api, { section }) {
  const select = section.querySelector('#heatmap-severity');
  const container = section.querySelector('#heatmap');
  let seq = 0;

  async function load() {
    const mine = ++seq;
    section.setAttribute('aria-busy', 'true');
    try {
      const heatmap = await api.get(`/api/v1/optimise/heatmap${query({ window_days: WINDOW_DAYS, severity: select.value })}`);
      if (mine !== seq) return;
      showProblem(section, null);
      container.replaceChildren(render(heatmap));
    } catch (error) {
      if (mine === seq) showProblem(section, error);
    } finally {
      if (mine === seq) section.removeAttribute('aria-busy');
    }
  }

  select.addEventListener('change', load);
  return { load };
}

function render(heatmap) {
  if (heatmap.cells.length === 0) {
    return h('p', { class: 'muted' }, heatmap.severity === 'ALL' ? 'No quality signals in this window.' : `No ${heatmap.severity} checks ran in this window.`);
  }
  const cells = new Map(heatmap.cells.map((c) => [`${c.agent_id}\u0000${c.check_id}`, c]));
  const header = h('tr', null, h('th', { scope: 'col' }, 'Agent'), heatmap.checks.map((check) => h('th', { scope: 'col' }, check)));
  const rows = heatmap.agents.map((agent) =>
    h('tr', null,
      h('th', { scope: 'row' }, agent.name ?? agent.external_id ?? agent.agent_id),
      heatmap.checks.map((check) => cell(agent, check, cells.get(`${agent.agent_id}\u0000${check}`)))));
  return h('table', { id: 'heatmap-table', class: 'heatmap' },
    h('caption', null, `Pass rate per agent and check, last ${heatmap.window_days} days${heatmap.severity === 'ALL' ? '' : `, severity ${heatmap.severity}`}`),
    h('thead', null, header),
    h('tbody', null, rows));
}

function cell(agent, check, data) {
  if (!data) return h('td', { class: 'empty' }, h('span', { class: 'visually-hidden' }, 'no runs'), '–');
  return h('td', {
    class: 'rate',
    style: { backgroundColor: passRateColour(data.pass_rate) },
    title: `${agent.name ?? agent.agent_id} · ${check} (${data.severity}): ${data.passed_runs} of ${data.total_runs} runs passed`,
    dataset: { agentId: data.agent_id, checkId: data.check_id, passRate: String(data.pass_rate), totalRuns: String(data.total_runs) },
  },
  h('span', { class: 'rate-value' }, percent(data.pass_rate)),
  h('span', { class: 'runs' }, `${integer(data.passed_runs)}/${integer(data.total_runs)}`));
}
