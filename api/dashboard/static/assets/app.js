// Entry point: which view shows (log in, change a temporary password, the dashboard), and the
// loading of every dashboard section once a session is there.
import { createAgentsView } from './agents.js';
import { createApi } from './api.js';
import { integer, showProblem, tiles } from './dom.js';
import { createHeatmapView } from './quality.js';
import { createSpendView, createTelemetryView } from './spend.js';

const $ = (selector) => document.querySelector(selector);

const views = {
  login: $('#login-view'),
  password: $('#password-view'),
  dashboard: $('#dashboard-view'),
};
const nav = $('#nav');
const logoutButton = $('#logout');
const loginForm = $('#login-form');
const passwordForm = $('#password-form');
// The login password is kept in memory only, so the change form need not ask for it again.
let lastPassword = '';

const api = createApi({
  onSignedOut: (error) => showLogin(error),
  onChangeRequired: () => showPassword(),
});

const sections = {
  registry: $('#registry'),
  agents: createAgentsView(api, { section: $('#agents'), detailSection: $('#agent-detail') }),
  heatmap: createHeatmapView(api, { section: $('#quality') }),
  spend: createSpendView(api, { section: $('#spend') }),
  telemetry: createTelemetryView(api, { section: $('#telemetry') }),
};

function show(name) {
  for (const [key, view] of Object.entries(views)) view.hidden = key !== name;
  nav.hidden = name !== 'dashboard';
  logoutButton.hidden = name === 'login';
  document.body.dataset.view = name;
}

function showLogin(error) {
  show('login');
  showProblem(loginForm, error && error.code !== 'missing_token' ? error : null);
  $('#login-email').focus();
}

function showPassword() {
  show('password');
  const current = $('#password-current');
  current.value = lastPassword;
  (lastPassword ? $('#password-new') : current).focus();
}

async function loadStats() {
  const section = sections.registry;
  section.setAttribute('aria-busy', 'true');
  try {
    const stats = await api.get('/api/v1/registry/stats');
    showProblem(section, null);
    $('#stats').replaceChildren(...tiles([
      { key: 'total', label: 'Agents', value: integer(stats.total), raw: stats.total },
      { key: 'approved', label: 'Approved', value: integer(stats.approved), raw: stats.approved },
      { key: 'critical', label: 'Critical risk', value: integer(stats.critical), raw: stats.critical },
      { key: 'high', label: 'High risk', value: integer(stats.high), raw: stats.high },
      { key: 'medium', label: 'Medium risk', value: integer(stats.medium), raw: stats.medium },
      { key: 'low', label: 'Low risk', value: integer(stats.low), raw: stats.low },
      { key: 'no_owner', label: 'Without owner', value: integer(stats.no_owner), raw: stats.no_owner },
      { key: 'has_discrepancies', label: 'With discrepancies', value: integer(stats.has_discrepancies), raw: stats.has_discrepancies },
    ]));
  } catch (error) {
    showProblem(section, error);
  } finally {
    section.removeAttribute('aria-busy');
  }
}

async function showDashboard() {
  show('dashboard');
  document.body.dataset.loaded = 'false';
  // Every section loads at once and reports its own problem; one failing hides no other.
  await Promise.all([loadStats(), sections.agents.load(), sections.heatmap.load(), sections.spend.load(), sections.telemetry.load()]);
  document.body.dataset.loaded = 'true';
}

loginForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const data = new FormData(loginForm);
  const button = loginForm.querySelector('button');
  button.disabled = true;
  try {
    const answer = await api.login(String(data.get('username')).trim(), String(data.get('password')));
    showProblem(loginForm, null);
    loginForm.reset();
    if (answer.password_change_required) {
      lastPassword = String(data.get('password'));
      showPassword();
    } else {
      await showDashboard();
    }
  } catch (error) {
    showProblem(loginForm, error);
  } finally {
    button.disabled = false;
  }
});

passwordForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const data = new FormData(passwordForm);
  const next = String(data.get('new_password'));
  if (next !== String(data.get('confirm_password'))) {
    showProblem(passwordForm, { detail: 'The two new passwords differ.' });
    $('#password-confirm').focus();
    return;
  }
  const button = passwordForm.querySelector('button');
  button.disabled = true;
  try {
    await api.changePassword(String(data.get('current_password')), next);
    lastPassword = '';
    passwordForm.reset();
    showProblem(passwordForm, null);
    await showDashboard();
  } catch (error) {
    showProblem(passwordForm, error);
  } finally {
    button.disabled = false;
  }
});

logoutButton.addEventListener('click', () => {
  api.logout();
  lastPassword = '';
  showLogin();
});

if (!api.session.active) showLogin();
else if (api.session.passwordChangeRequired) showPassword();
else showDashboard();
