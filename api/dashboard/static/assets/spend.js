// Spend (cost summary with its daily trend, departments against budgets) and the telemetry
// connection status.
import { barChart } from './charts.js';
import { badge, dateTime, h, integer, money, percent, showProblem, table, tiles } from './dom.js';

const SUMMARY_DAYS = 30;

export function createSpendView(api, { section }) {
  const tileList = section.querySelector('#cost-tiles');
  const trend = section.querySelector('#cost-trend');
  const departments = section.querySelector('#departments');

  async function load() {
    section.setAttribute('aria-busy', 'true');
    try {
      const [summary, byDepartment] = await Promise.all([api.get(`/api/v1/costs/summary?days=${SUMMARY_DAYS}`), api.get('/api/v1/costs/departments')]);
      showProblem(section, null);
      renderSummary(summary);
      departments.replaceChildren(renderDepartments(byDepartment));
    } catch (error) {
      showProblem(section, error);
    } finally {
      section.removeAttribute('aria-busy');
    }
  }

  function renderSummary(summary) {
    const currency = summary.display_currency;
    const attributed = summary.total_cost_usd - summary.unattributed_cost_usd;
    tileList.replaceChildren(...tiles([
      { key: 'total-usd', label: 'Total (USD)', value: money(summary.total_cost_usd, 'USD'), raw: summary.total_cost_usd },
      { key: 'total-display', label: `Total (${currency})`, value: money(summary.total_cost_display, currency), raw: summary.total_cost_display },
      { key: 'unattributed-usd', label: 'Unattributed (USD)', value: money(summary.unattributed_cost_usd, 'USD'), raw: summary.unattributed_cost_usd, title: 'Cost events from agents not in the registry; included in the totals' },
      { key: 'attributed-usd', label: 'Attributed to agents (USD)', value: money(attributed, 'USD'), raw: attributed },
    ]));
    const points = summary.daily_trend.map((d) => ({ label: d.date, value: d.cost_display, title: `${d.date}: ${money(d.cost_display, currency)} (${money(d.cost_usd, 'USD')})` }));
    trend.replaceChildren(
      barChart(points, { label: `Daily spend in ${currency} over the last ${summary.period_days} days, total ${money(summary.total_cost_display, currency)}`, formatValue: (v) => money(v, currency) }),
      h('figcaption', null, `Daily spend in ${currency}, oldest day first`),
    );
  }

  return { load };
}

function renderDepartments(answer) {
  const currency = answer.display_currency;
  if (answer.departments.length === 0) return h('p', { class: 'muted' }, `No spend yet in the month starting ${answer.month}.`);
  const rows = answer.departments.map((d) => [
    d.department ?? h('span', { class: 'muted' }, 'No department / unattributed'),
    integer(d.events),
    money(d.cost_usd, 'USD'),
    money(d.cost_display, currency),
    d.budget_amount === null ? h('span', { class: 'muted' }, 'no budget') : money(d.budget_amount, currency),
    utilisation(d.utilisation),
  ]);
  const el = table({ text: `Spend per department in the month starting ${answer.month}, against budgets in ${currency}`, visible: false },
    ['Department', { label: 'Events', numeric: true }, { label: 'USD', numeric: true }, { label: currency, numeric: true }, { label: 'Budget', numeric: true }, 'Budget used'],
    rows, { id: 'department-table' });
  // Each row carries its department for tests and styling; the null department has none.
  [...el.tBodies[0].rows].forEach((tr, i) => (tr.dataset.department = answer.departments[i].department ?? ''));
  return el;
}

function utilisation(value) {
  if (value === null) return h('span', { class: 'muted' }, '–');
  // A native meter: screen readers announce it and it turns amber then red near and over budget.
  return h('span', { class: value > 1 ? 'utilisation over' : 'utilisation' },
    h('meter', { min: 0, max: 1, low: 0.8, high: 0.999, optimum: 0, value: Math.min(value, 1), 'aria-label': `${percent(value)} of budget` }),
    ' ', percent(value));
}

export function createTelemetryView(api, { section }) {
  const container = section.querySelector('#telemetry-status');

  async function load() {
    section.setAttribute('aria-busy', 'true');
    try {
      const status = await api.get('/api/v1/otel/status');
      showProblem(section, null);
      container.replaceChildren(render(status));
    } catch (error) {
      showProblem(section, error);
    } finally {
      section.removeAttribute('aria-busy');
    }
  }
  return { load };
}

function render(status) {
  const rejection = status.last_rejection;
  return h('div', null,
    h('p', { id: 'telemetry-state' }, badge(status.status, 'telemetry'), ' ',
      status.status === 'RECEIVING' ? `Spans arrived in the last ${status.recent_window_minutes} minutes.`
        : status.status === 'STALE' ? `No span in the last ${status.recent_window_minutes} minutes.`
          : 'No span has arrived yet. Point an OTLP/HTTP exporter at /api/v1/otel with a service-account token.'),
    h('dl', { class: 'tiles' }, tiles([
      { key: 'spans-24h', label: 'Spans, last 24 h', value: integer(status.spans_last_24h), raw: status.spans_last_24h },
      { key: 'services-24h', label: 'Services, last 24 h', value: integer(status.services_last_24h), raw: status.services_last_24h },
      { key: 'last-span', label: 'Last span', value: dateTime(status.last_span_at) },
      { key: 'rejected', label: 'Rejected exports', value: integer(status.exports_rejected_total), raw: status.exports_rejected_total },
    ])),
    status.services.length === 0 ? null
      : table('Services sending spans in the last 24 hours', ['Service', { label: 'Spans', numeric: true }], status.services.map((svc) => [svc.service_name, integer(svc.spans)]), { class: 'compact' }),
    rejection ? h('p', { class: 'muted' }, `Last rejected export (${rejection.signal}, ${dateTime(rejection.at)}): ${rejection.reason}`) : null);
}
