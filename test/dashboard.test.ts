// The dashboard in a real browser (Debian's Chromium driven by playwright-core) against the real
// service: log in with a temporary password, change it, then every section shows the figures
// the API gives for events this test sent, and the page logs no console error. Chromium must be
// installed (`apt-get install -y chromium`); without it this test fails, it does not skip.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createAccessTokens } from '../api/auth/access-tokens.ts';
import { createServiceAccount } from '../lib/auth/service-accounts.ts';
import { createUser } from '../lib/auth/users.ts';
import { readJwtSecret } from '../lib/instance-settings.ts';
import { createLogger } from '../lib/log.ts';
import { PRICE_TABLE } from '../lib/pricing/price-table.ts';
import { createDatabase } from '../lib/postgres/database.ts';
import { migrate } from '../lib/postgres/migrate.ts';
import { createObservationSync } from '../workers/observation-sync.ts';
import { createTestDatabase } from './helpers/database.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { tokenFor } from './helpers/tokens.ts';

// A browser on a shared two-core machine is slow; Playwright's own waits fail first, with a message.
vi.setConfig({ testTimeout: 90_000 });

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const EMAIL = 'morning-admin@example.test';
const TEMPORARY = 'Temporary-pass-1234';
const CHOSEN = 'Chosen-password-5678';

let service: TestService;
let seeded: Seeded;
let context: BrowserContext;
let page: Page;
let profileDir: string;
let userId: string;
const consoleErrors: string[] = [];

interface Seeded {
  token: string;
  agents: Record<string, string>;
  /** `${agent uuid}|${check}` → pass rate over the 7-day window, from the signals sent. */
  heatmapExpected: Map<string, number>;
  unattributedUsd: number;
}

const DAY = 86_400_000;
const todayStart = Math.floor(Date.now() / DAY) * DAY;
// Today's events sit seconds after midnight: never in the future by more than ingest allows.
const at = (dayOffset: number, second: number) => new Date(todayStart + dayOffset * DAY + second * 1000).toISOString();
const usd = (model: string, input: number, output: number) => {
  const price = PRICE_TABLE.find((p) => p.model === model)!;
  return (input * price.input + output * price.output) / 1e6;
};

/** Two declared agents, one discovered by its signal, signals, cost events, a budget and a span. */
async function seedDashboardData(token: string, serviceToken: string): Promise<Seeded> {
  // Write endpoints are public; registry and budget calls carry the admin token.
  const post = async (pathname: string, body: unknown, { status = 202, bearer, headers }: { status?: number; bearer?: string; headers?: Record<string, string> } = {}) => {
    const res = await call(service.baseUrl, 'POST', pathname, { body, token: bearer, headers });
    expect(res.status, `${pathname}: ${JSON.stringify(res.body)}`).toBe(status);
    return res.body;
  };
  const invoice = await post('/api/v1/agents', { name: 'Invoice Bot', external_id: 'invoice-bot', framework: 'langchain', owner_email: 'finance-lead@example.test', department: 'Finance', contains_pii: true, external_llm_calls: false, primary_model: 'gpt-4o', model_provider: 'openai' }, { status: 201, bearer: token });
  const support = await post('/api/v1/agents', { name: 'Support Agent', external_id: 'support-agent', framework: 'crewai', department: 'Support' }, { status: 201, bearer: token });
  const approved = await call(service.baseUrl, 'PATCH', `/api/v1/agents/${invoice.agent_id}`, { token, body: { status: 'APPROVED' } });
  expect(approved.status).toBe(200);
  await post('/api/v1/costs/budgets', { department: 'Finance', month: new Date(todayStart).toISOString().slice(0, 8) + '01', budget_amount: 0.2 }, { status: 201, bearer: token });

  const agents: Record<string, string> = { 'invoice-bot': invoice.agent_id, 'support-agent': support.agent_id };
  const runs = new Map<string, { total: number; passed: number }>();
  let job = 0;
  const signal = async (agent: string, dayOffset: number, checks: Array<[string, string, boolean]>, tokens = false) => {
    job++;
    const answer = await post(`/api/v1/jobs/job-${job}/quality`, {
      agent_id: agent, job_id: `job-${job}`, overall_passed: checks.every((c) => c[2]), latency_ms: 120, occurred_at: at(dayOffset, job),
      checks: checks.map(([check_id, severity, passed]) => ({ check_id, severity, passed })),
      ...(tokens ? { token_input: 1000, token_output: 200, model: 'gpt-4o-mini' } : {}),
    });
    agents[agent] = answer.agent_id;
    for (const [check, , passed] of checks) {
      const key = `${answer.agent_id}|${check}`;
      const cell = runs.get(key) ?? { total: 0, passed: 0 };
      runs.set(key, { total: cell.total + 1, passed: cell.passed + (passed ? 1 : 0) });
    }
  };
  for (const day of [-3, -2, -1]) for (let i = 0; i < 4; i++) await signal('invoice-bot', day, [['accuracy', 'HIGH', true]]);
  for (let i = 0; i < 4; i++) await signal('invoice-bot', 0, [['accuracy', 'HIGH', i === 0], ['format', 'LOW', true]], i < 2);
  for (const passed of [true, false, true]) await signal('support-agent', 0, [['accuracy', 'HIGH', passed], ['tone', 'MEDIUM', true]]);
  await signal('shadow-agent', 0, [['safety', 'CRITICAL', false]]);

  const cost = (agent: string, model: string, input: number, output: number, when: string) => ({ agent_id: agent, job_id: `cost-${agent}-${when}`, model, provider: 'openai', input_tokens: input, output_tokens: output, occurred_at: when });
  const batch = [cost('invoice-bot', 'gpt-4o-mini', 200_000, 50_000, at(0, 100)), cost('invoice-bot', 'gpt-4o-mini', 100_000, 20_000, at(-5, 100)), cost('support-agent', 'gpt-4o', 30_000, 3_000, at(0, 101)), cost('ghost-agent', 'gpt-4o', 10_000, 1_000, at(0, 102))];
  const costs = await post('/api/v1/costs/events/batch', batch, { status: 200 });
  // The ingest directory now knows invoice-bot (the cost event looked it up), so the span
  // below resolves to it instead of waiting for the directory's next poll.
  expect(costs.items.map((item: any) => item.result.agent_id)).toEqual([invoice.agent_id, invoice.agent_id, support.agent_id, null]);

  const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString();
  const attribute = (key: string, value: string | number) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } });
  await post('/api/v1/otel/v1/traces', {
    resourceSpans: [{
      resource: { attributes: [attribute('service.name', 'invoice-bot')] },
      scopeSpans: [{ scope: { name: 'dashboard-test' }, spans: [{
        traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), name: 'chat gpt-4o-mini', kind: 3,
        startTimeUnixNano: nanos(Date.now() - 900), endTimeUnixNano: nanos(Date.now() - 300),
        attributes: [attribute('gen_ai.operation.name', 'chat'), attribute('gen_ai.system', 'openai'), attribute('gen_ai.request.model', 'gpt-4o-mini'), attribute('gen_ai.usage.input_tokens', 300), attribute('gen_ai.usage.output_tokens', 40)],
      }] }],
    }],
  }, { status: 200, bearer: serviceToken });

  const heatmapExpected = new Map([...runs].map(([key, cell]) => [key, cell.passed / cell.total]));
  return { token, agents, heatmapExpected, unattributedUsd: usd('gpt-4o', 10_000, 1_000) };
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: the dashboard browser test needs it. Install it with "apt-get install -y chromium" (or set CHROMIUM_PATH).`);
  }
  const databaseUrl = await createTestDatabase();
  const setupDb = createDatabase(databaseUrl, { max: 1 });
  await migrate(setupDb);
  // A display currency other than USD, so the page must show both amounts.
  await setupDb.query(`UPDATE instance_settings SET display_currency = 'EUR', usd_rate = 0.9`);
  await setupDb.close();
  service = await startTestService({ DATABASE_URL: databaseUrl });
  userId = (await createUser(service.db, { email: EMAIL, name: 'Morning Admin', password: TEMPORARY, role: 'admin', passwordChangeRequired: true }, 10)).id;
  seeded = await seedDashboardData(await tokenFor(service.db, 'admin'), (await createServiceAccount(service.db, 'dashboard-test')).token);
  // Observations (models used, failing checks) feed risk and discrepancies; one pass now makes
  // them final, so the periodic pass changes nothing while the page is looked at.
  await createObservationSync(service.db, service.analytics!, createLogger('silent')).runOnce();

  profileDir = await fs.mkdtemp(path.join(os.tmpdir(), 'aor-chromium-profile-'));
  context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 900 } });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));
}, 240_000);

afterAll(async () => {
  await context?.close();
  if (profileDir) await fs.rm(profileDir, { recursive: true, force: true });
  await service?.stop();
});

/** What the API answers for a path, with a token of its own (not the browser's). */
async function api(pathname: string) {
  const res = await call(service.baseUrl, 'GET', pathname, { token: seeded.token });
  expect(res.status, `${pathname}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/** The console errors since the last call; the page must log none unless a step provokes one. */
function takeConsoleErrors(): string[] {
  return consoleErrors.splice(0, consoleErrors.length);
}

const amount = (text: string | null) => Number((text ?? '').replace(/[^0-9.-]/g, ''));
const tile = (key: string) => page.locator(`[data-tile="${key}"] dd`);
const rowNames = () => page.locator('#agent-table tbody th button').allTextContents();
const dashboardLoaded = () => page.waitForSelector('body[data-loaded="true"]');

it('serves the page and its assets publicly, with a strict content-security-policy and revalidation', async () => {
  const root = await fetch(`${service.baseUrl}/`, { redirect: 'manual' });
  expect([root.status, root.headers.get('location')]).toEqual([302, '/dashboard']);
  const pageRes = await fetch(`${service.baseUrl}/dashboard`);
  expect(pageRes.status).toBe(200);
  expect(pageRes.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(pageRes.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(pageRes.headers.get('content-security-policy')).not.toContain('unsafe-inline');
  expect(pageRes.headers.get('x-content-type-options')).toBe('nosniff');
  expect(pageRes.headers.get('cache-control')).toBe('no-cache');
  const html = await pageRes.text();
  expect(html).toContain('<script type="module" src="/dashboard/assets/app.js">');
  // The page is a shell: nothing of the instance's data is in it.
  expect(html).not.toContain('invoice-bot');
  const again = await fetch(`${service.baseUrl}/dashboard`, { headers: { 'if-none-match': pageRes.headers.get('etag')! } });
  expect(again.status).toBe(304);
  const script = await fetch(`${service.baseUrl}/dashboard/assets/app.js`);
  expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
  const missing = await call(service.baseUrl, 'GET', '/dashboard/assets/..%2Fopenapi.ts');
  expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
});

it('logs in, changes the temporary password, and refuses a wrong password with the problem detail', async () => {
  await page.goto(`${service.baseUrl}/`);
  expect(new URL(page.url()).pathname).toBe('/dashboard');
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password', { exact: true }).fill('not-the-password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect.poll(() => page.locator('#login-problem').textContent()).toBe('The username or password is wrong.');
  expect(takeConsoleErrors()).toEqual([expect.stringContaining('401')]);

  await page.getByLabel('Password', { exact: true }).fill(TEMPORARY);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('#password-view').waitFor({ state: 'visible' });
  // The temporary password typed at login is carried over; only the new one is asked for.
  expect(await page.getByLabel('Current password').inputValue()).toBe(TEMPORARY);
  await page.getByLabel('New password', { exact: true }).fill(CHOSEN);
  await page.getByLabel('Repeat the new password').fill(CHOSEN);
  await page.getByRole('button', { name: 'Change password' }).click();
  await dashboardLoaded();
  const login = await call(service.baseUrl, 'POST', '/auth/login', { body: { username: EMAIL, password: CHOSEN } });
  expect([login.status, login.body.password_change_required]).toEqual([200, undefined]);
  expect(takeConsoleErrors()).toEqual([]);
});

it('shows the registry stats tiles', async () => {
  const stats = await api('/api/v1/registry/stats');
  expect([stats.total, stats.approved, stats.no_owner]).toEqual([3, 1, 2]);
  for (const key of ['total', 'approved', 'critical', 'high', 'medium', 'low', 'no_owner', 'has_discrepancies']) {
    expect(Number(await tile(key).textContent()), key).toBe(stats[key]);
  }
});

it('lists agents in the API order and filters them by status, search, owner and sort', async () => {
  const byRisk = (await api('/api/v1/agents')).map((a: any) => a.name);
  expect(await rowNames()).toEqual(byRisk);
  const first = page.locator('#agent-table tbody tr').first();
  const agent = (await api('/api/v1/agents'))[0];
  expect(await first.locator('td').nth(3).textContent()).toBe(String(agent.risk_score));
  expect(await first.locator('td').nth(6).textContent()).toBe(String(agent.discrepancies.length));

  await page.getByLabel('Status').selectOption('APPROVED');
  await expect.poll(rowNames).toEqual(['Invoice Bot']);
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect.poll(rowNames).toEqual(byRisk);
  await page.getByLabel('Search').fill('SUPPORT');
  await expect.poll(rowNames).toEqual(['Support Agent']);
  await page.getByLabel('Search').fill('');
  await page.getByLabel('No owner only').check();
  const noOwner = (await api('/api/v1/agents?no_owner=true&sort_by=name&sort_dir=asc')).map((a: any) => a.name);
  await page.getByLabel('Sort by').selectOption('name');
  await page.getByLabel('Direction').selectOption('asc');
  await expect.poll(rowNames).toEqual(noOwner);
  expect([...noOwner].sort()).toEqual(['Support Agent', 'shadow-agent']);
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect.poll(rowNames).toEqual(byRisk);
});

it("opens an agent's detail with risk, discrepancies, telemetry, accuracy trend and cost", async () => {
  const id = seeded.agents['invoice-bot'];
  const [agent, accuracy, cost] = await Promise.all([api(`/api/v1/agents/${id}`), api(`/api/v1/agents/${id}/accuracy?days=14`), api(`/api/v1/costs/agents/${id}?days=30`)]);
  // Keyboard: focus the name and press Enter.
  await page.getByRole('button', { name: 'Invoice Bot' }).focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('#detail-title').textContent()).toBe('Invoice Bot');
  await page.locator('#accuracy-table').waitFor();
  expect(await page.locator('#detail-title').evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await page.locator('.risk-factors li').count()).toBe(agent.risk_factors.length);
  expect(agent.discrepancies.length).toBeGreaterThan(0);
  expect(await page.locator('.discrepancies li').count()).toBe(agent.discrepancies.length);
  expect(agent.telemetry.spans).toBe(1);
  expect(await page.locator('#detail-body').textContent()).toContain('gpt-4o-mini');
  expect(await page.locator('#accuracy-table tbody tr').count()).toBe(accuracy.length);
  // Today's accuracy fell to 1 of 4 after 4 of 4 on each of three days: a degrading mark.
  expect(accuracy.filter((r: any) => r.trend === 'DEGRADING').map((r: any) => r.check_id)).toEqual(['accuracy']);
  expect(await page.locator('#accuracy svg path[data-trend="DEGRADING"]').count()).toBe(1);
  expect(amount(await tile('agent-cost-usd').getAttribute('data-value'))).toBe(cost.cost_usd);
  expect(amount(await tile('agent-cost-usd').textContent())).toBeCloseTo(cost.cost_usd, 4);
  expect(amount(await tile('agent-cost-display').textContent())).toBeCloseTo(cost.cost_display, 4);
  expect(await page.locator('#agent-cost-models tbody tr').count()).toBe(cost.by_model.length);
});

it('shows the pass-rate heatmap with the rates of the signals sent, and filters by severity', async () => {
  const expected = seeded.heatmapExpected;
  const cells = await page.locator('#heatmap-table td.rate').evaluateAll((tds) =>
    tds.map((td) => ({ key: `${(td as HTMLElement).dataset.agentId}|${(td as HTMLElement).dataset.checkId}`, rate: Number((td as HTMLElement).dataset.passRate), text: td.querySelector('.rate-value')!.textContent })),
  );
  expect(cells.map((c) => c.key).sort()).toEqual([...expected.keys()].sort());
  for (const cell of cells) {
    const want = expected.get(cell.key)!;
    expect(cell.rate, cell.key).toBeCloseTo(want, 10);
    expect(cell.text).toBe(`${Math.round(want * 100)}%`);
  }
  await page.getByLabel('Severity').selectOption('HIGH');
  await expect.poll(() => page.locator('#heatmap-table thead th').allTextContents()).toEqual(['Agent', 'accuracy']);
  await page.getByLabel('Severity').selectOption('ALL');
  await expect.poll(() => page.locator('#heatmap-table td.rate').count()).toBe(expected.size);
});

it('shows spend totals, the daily trend and departments against budgets as the API computes them', async () => {
  const [summary, departments] = await Promise.all([api('/api/v1/costs/summary?days=30'), api('/api/v1/costs/departments')]);
  expect(summary.unattributed_cost_usd).toBeCloseTo(seeded.unattributedUsd, 8);
  expect(Number(await tile('total-usd').getAttribute('data-value'))).toBe(summary.total_cost_usd);
  expect(amount(await tile('total-usd').textContent())).toBeCloseTo(summary.total_cost_usd, 4);
  expect(await tile('total-display').textContent()).toMatch(/^€/);
  expect(amount(await tile('total-display').textContent())).toBeCloseTo(summary.total_cost_display, 4);
  expect(amount(await tile('unattributed-usd').textContent())).toBeCloseTo(summary.unattributed_cost_usd, 4);
  const bars = await page.locator('#cost-trend rect.bar').evaluateAll((rects) => rects.map((r) => [(r as SVGElement).dataset.date, Number((r as SVGElement).dataset.value)]));
  expect(bars).toEqual(summary.daily_trend.map((d: any) => [d.date, d.cost_display]));
  const finance = departments.departments.find((d: any) => d.department === 'Finance');
  const row = page.locator('#department-table tr[data-department="Finance"]');
  expect(amount(await row.locator('td').nth(1).textContent())).toBeCloseTo(finance.cost_usd, 4);
  expect(amount(await row.locator('td').nth(2).textContent())).toBeCloseTo(finance.cost_display, 4);
  expect(amount(await row.locator('td').nth(3).textContent())).toBe(finance.budget_amount);
  expect(await row.locator('td').nth(4).textContent()).toContain(`${Math.round(finance.utilisation * 100)}%`);
  expect(Number(await row.locator('meter').getAttribute('value'))).toBeCloseTo(Math.min(finance.utilisation, 1), 10);
  expect(await page.locator('#department-table tbody tr').count()).toBe(departments.departments.length);
});

it('shows the telemetry connection status', async () => {
  const status = await api('/api/v1/otel/status');
  expect(status.status).toBe('RECEIVING');
  // The page read the status when it loaded, which may have been before ingest recorded the
  // arrival (recorded at most once a second): reload and wait for the section to show it.
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#telemetry-state .badge')?.textContent === 'RECEIVING', undefined, { timeout: 10_000 });
  expect(await page.locator('#telemetry-state .badge').textContent()).toBe('RECEIVING');
  expect(Number(await tile('spans-24h').textContent())).toBe(status.spans_last_24h);
});

it('renews an expired access token with one refresh shared by every call, and keeps the session', async () => {
  const before = await page.evaluate(() => sessionStorage.getItem('aor.refresh_token'));
  const expired = await createAccessTokens(await readJwtSecret(service.db)).issue({ userId, role: 'admin', passwordChangeOnly: false }, new Date(Date.now() - 2 * 3600_000));
  await page.evaluate((token) => sessionStorage.setItem('aor.access_token', token), expired);
  await page.reload();
  await dashboardLoaded();
  expect(await page.locator('#login-view').isHidden()).toBe(true);
  expect(Number(await tile('total').textContent())).toBe(3);
  const after = await page.evaluate(() => sessionStorage.getItem('aor.refresh_token'));
  expect(after).not.toBe(before);
  // Each section's first call met the expired token (logged by Chromium as a failed load) and
  // then succeeded; a second refresh with the rotated token would have ended the session.
  const errors = takeConsoleErrors();
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.every((e) => e.includes('401'))).toBe(true);
  const refreshed = await call(service.baseUrl, 'POST', '/auth/refresh', { body: { refresh_token: after } });
  expect(refreshed.status).toBe(200);
});

it('renders without console errors (screenshot kept for a look)', async () => {
  await page.getByRole('button', { name: 'Invoice Bot' }).click();
  await page.locator('#accuracy-table').waitFor();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'aor-dashboard-'));
  const file = path.join(dir, 'dashboard.png');
  await page.screenshot({ path: file, fullPage: true });
  expect((await fs.stat(file)).size).toBeGreaterThan(20_000);
  console.log(`dashboard screenshot: ${file}`);
  expect(takeConsoleErrors()).toEqual([]);
});
