// Alert emails end to end (decisions §10): each anomaly condition is produced from real data
// (cost events through the ingest endpoint, budgets through the API, check results and spans in
// the analytics store, discovered agents in the registry), detected at a pinned time, recorded in
// the outbox and received once by a real SMTP server. Then the service restarts on the same
// database and data: the alert left unsent arrives, and detection adds nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../lib/auth/users.ts';
import { insertSignals } from '../lib/analytics/signals.ts';
import { insertSpans } from '../lib/analytics/spans.ts';
import { addDays, utcDay } from '../lib/analytics/time.ts';
import { readInstanceSettings } from '../lib/instance-settings.ts';
import { createLogger } from '../lib/log.ts';
import type { SignalRecord } from '../schemas/analytics-rows.ts';
import type { SpanEvent } from '../schemas/telemetry.ts';
import { createAlertsComponent, type AlertsComponent } from '../workers/alerts/component.ts';
import { alertDueAt } from '../workers/alerts/detect.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.ts';

const CONTACTS = ['ops@example.com', 'cfo@example.com'];
// Detection runs at 23:00 UTC yesterday: every event lies in the past (as ingest requires) and
// the whole scenario lives in one UTC day and month, whenever the test runs.
const Y = addDays(utcDay(new Date()), -1);
const ANCHOR = new Date(`${Y}T23:00:00Z`);
const MONTH = Y.slice(0, 7);
const at = (day: string, time: string) => `${day}T${time}Z`;

let sink: SmtpSink;
let service: TestService;
let alerts: AlertsComponent;
let token: string;
const agentIds: Record<string, string> = {};

const alertMails = () => sink.messages.filter((m) => m.headers['x-aor-kind'] !== 'weekly_report');
const keysReceived = () => alertMails().map((m) => m.headers['x-aor-key']!);
const component = (s: TestService) =>
  createAlertsComponent({
    config: { smtpUrl: sink.url, smtpFrom: 'Agent Ops <aor@example.com>', dataDir: s.dataDir },
    logger: createLogger('silent'), db: s.db, analytics: s.analytics!, clock: () => ANCHOR,
  });

async function addAgent(externalId: string, fields: { department?: string; status?: string; contains_pii?: boolean; source?: string; created_at?: string } = {}) {
  const { rows } = await service.db.query<{ id: string }>(
    `INSERT INTO agents (external_id, name, framework, status, department, contains_pii, source, created_at)
     VALUES ($1, $1, 'LANGCHAIN', $2, $3, $4, $5, COALESCE($6::timestamptz, now())) RETURNING id::text AS id`,
    [externalId, fields.status ?? 'APPROVED', fields.department ?? null, fields.contains_pii ?? false, fields.source ?? 'api', fields.created_at ?? null],
  );
  agentIds[externalId] = rows[0]!.id;
}

/** Spend of `usd` dollars (gpt-4o output at 10 USD per million tokens) through the public endpoint. */
async function spend(agent: string, usd: number, occurredAt: string) {
  const answer = await call(service.baseUrl, 'POST', '/api/v1/costs/events', {
    body: { agent_id: agent, job_id: `job-${randomUUID()}`, model: 'gpt-4o', provider: 'openai', input_tokens: 0, output_tokens: Math.round(usd * 100_000), occurred_at: occurredAt },
  });
  expect(answer.status).toBe(202);
  expect(answer.body.cost_usd).toBeCloseTo(usd, 6);
  expect(answer.body.agent_id).toBe(agentIds[agent]);
}

function signal(agent: string, receivedAt: string, checks: SignalRecord['checks']): SignalRecord {
  return {
    signal_id: randomUUID(), agent_id: agentIds[agent]!, agent_external_id: agent, job_id: `job-${randomUUID()}`, overall_passed: checks.every((c) => c.passed),
    latency_ms: 120, model: null, token_input: null, token_output: null, received_at: receivedAt, checks,
  };
}

/** One span as the OTLP ingest would store it, received at `receivedAt`. */
function span(serviceName: string, receivedAt: string): SpanEvent {
  const t = `${receivedAt.replace('T', ' ').replace('Z', '').slice(0, 19)}.000000000`;
  const hex = (n: number) => randomUUID().replace(/-/g, '').slice(0, n);
  return {
    trace_id: hex(32), span_id: hex(16), parent_span_id: '', name: 'llm.call', kind: 'CLIENT', start_time: t, end_time: t, duration_ms: 0,
    status_code: 'OK', status_message: '', service_name: serviceName, scope_name: '', scope_version: '', model: '', request_model: '', provider: '',
    operation: '', agent_name: '', agent_id: '', input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, attributes: {},
    resource_attributes: {}, registry_agent_id: null, agent_key: serviceName, cost_usd: 0, priced: true, received_at: receivedAt,
  };
}

async function detectAndDeliver(expected: string[]) {
  const before = alertMails().length;
  const found = await alerts.detect();
  expect(found.failed).toEqual([]);
  expect(found.recorded.sort()).toEqual([...expected].sort());
  const delivery = await alerts.deliver();
  expect(delivery.sent.sort()).toEqual([...expected].sort());
  await sink.waitFor(sink.messages.length);
  expect(keysReceived().slice(before).sort()).toEqual([...expected].sort());
  return alertMails().slice(before);
}

beforeAll(async () => {
  sink = await startSmtpSink();
  // No workers role: this test drives detection and delivery itself, at the pinned time.
  service = await startTestService({ ROLES: 'ingest,api', SMTP_URL: sink.url });
  await createUser(service.db, { email: 'admin@example.com', password: 'alerts test pw', role: 'admin' }, 10);
  token = (await call(service.baseUrl, 'POST', '/auth/login', { body: { username: 'admin@example.com', password: 'alerts test pw' } })).body.access_token;
  expect((await call(service.baseUrl, 'PATCH', '/api/v1/settings', { token, body: { alert_contacts: CONTACTS } })).status).toBe(200);
  for (const [agent, department] of [['ops-bot', 'Ops'], ['sales-bot', 'Sales'], ['mkt-bot', 'Marketing'], ['refund-bot', 'Support']]) await addAgent(agent!, { department });
  await new Promise((r) => setTimeout(r, 1_500)); // the ingest directory polls the registry every second
  alerts = component(service);
});
afterAll(async () => {
  await alerts?.stop();
  await service?.stop();
  await sink?.stop();
});

describe('alerts, one per condition and period', () => {
  it('stays quiet on ordinary spend', async () => {
    for (let d = 10; d >= 1; d--) await spend('ops-bot', 1, at(addDays(Y, -d), '10:00:00'));
    for (const [department, amount] of [['Sales', 100], ['Marketing', 50]] as const) {
      expect((await call(service.baseUrl, 'POST', '/api/v1/costs/budgets', { token, body: { department, month: `${MONTH}-01`, budget_amount: amount } })).status).toBe(201);
    }
    await detectAndDeliver([]);
  });

  it("a day's spend well above its baseline", async () => {
    await spend('ops-bot', 12, at(Y, '09:00:00'));
    const [mail] = await detectAndDeliver([`spend_spike:${Y}`]);
    expect(mail!.envelopeTo.sort()).toEqual([...CONTACTS].sort());
    expect(mail!.headers.to).toContain('ops@example.com');
    expect(mail!.subject).toBe(`[Unnamed company] Alert: Spend on ${Y} is 16.8x the usual daily spend`);
    expect(mail!.text).toContain('12.00 USD');
    expect(mail!.text).toContain('0.71 USD'); // 10 days of 1 USD over 14 days
    expect(mail!.html).toContain('<table');
  });

  it('a department crossing 80 % of its budget, then 100 %; a jump past 100 % sends one alert', async () => {
    await spend('sales-bot', 85, at(Y, '11:00:00'));
    const [at80] = await detectAndDeliver([`budget_80:Sales:${MONTH}`]);
    expect(at80!.subject).toContain('Sales has used 85.0 % of its');
    await spend('sales-bot', 20, at(Y, '12:00:00'));
    await spend('mkt-bot', 60, at(Y, '12:00:00'));
    const mails = await detectAndDeliver([`budget_100:Sales:${MONTH}`, `budget_100:Marketing:${MONTH}`]);
    expect(mails.map((m) => m.subject).sort()).toEqual([
      `[Unnamed company] Alert: Marketing has used 120.0 % of its ${MONTH} budget`,
      `[Unnamed company] Alert: Sales has used 105.0 % of its ${MONTH} budget`,
    ]);
    const { rows } = await service.db.query(`SELECT state FROM email_outbox WHERE key = $1`, [`budget_80:Marketing:${MONTH}`]);
    expect(rows).toEqual([{ state: 'superseded' }]);
  });

  it('a HIGH check turning DEGRADING (not a LOW one, not on 2 runs)', async () => {
    const records: SignalRecord[] = [];
    for (let d = 7; d >= 0; d--) {
      for (let i = 0; i < 10; i++) {
        const passed = d > 0 || i < 4; // 100 % for 7 days, then 40 % on Y
        records.push(signal('refund-bot', at(addDays(Y, -d), `1${i % 10}:00:00`), [
          { check_id: 'refund_policy', severity: 'HIGH', passed },
          { check_id: 'tone', severity: 'LOW', passed },
          ...(d === 0 && i < 2 ? [{ check_id: 'greeting', severity: 'CRITICAL', passed: false }] : []),
        ]));
      }
    }
    expect(await insertSignals(service.analytics!, records, 'alerts-test')).toBe(records.length);
    const [mail] = await detectAndDeliver([`check_degrading:${agentIds['refund-bot']}:refund_policy:${Y}`]);
    expect(mail!.subject).toBe('[Unnamed company] Alert: HIGH check refund_policy of refund-bot is DEGRADING');
    expect(mail!.text).toMatch(/Pass rate\s+40\.0 % \(4 of 10 runs\)/);
  });

  it('a new discovered agent handling PII', async () => {
    await addAgent('shadow-bot', { status: 'DISCOVERED', contains_pii: true, source: 'discovery', created_at: at(Y, '20:00:00') });
    await addAgent('harmless-bot', { status: 'DISCOVERED', contains_pii: false, source: 'discovery', created_at: at(Y, '20:00:00') });
    await addAgent('approved-pii-bot', { status: 'APPROVED', contains_pii: true, created_at: at(Y, '20:00:00') });
    await addAgent('old-shadow-bot', { status: 'DISCOVERED', contains_pii: true, source: 'discovery', created_at: at(addDays(Y, -30), '20:00:00') });
    const [mail] = await detectAndDeliver([`discovered_pii:${agentIds['shadow-bot']}`]);
    expect(mail!.subject).toContain('New agent shadow-bot handles personal data');
  });

  it('telemetry that stopped is recorded (and left unsent: the restart below must send it)', async () => {
    const spans = [
      ...['18:10', '19:10', '20:10'].map((t) => span('checkout-agent', at(Y, `${t}:00.000`))),
      span('nightly-batch', at(Y, '20:30:00.000')),
      ...['20:10', '21:10', '22:40'].map((t) => span('live-agent', at(Y, `${t}:00.000`))),
      span('live-agent', new Date(Date.now() - 60_000).toISOString()),
    ];
    expect(await insertSpans(service.analytics!, spans, 'alerts-test')).toBe(spans.length);
    const found = await alerts.detect();
    expect(found).toEqual({ recorded: [`telemetry_stopped:checkout-agent:${Y}T20`], failed: [] });
    const { rows } = await service.db.query('SELECT state, attempts, message FROM email_outbox WHERE key = $1', [found.recorded[0]]);
    expect(rows[0]).toMatchObject({ state: 'pending', attempts: 0 });
    expect(rows[0]!.message.subject).toContain('Telemetry from checkout-agent stopped 170 minutes ago');
  });

  it('records every alert with its detection time and a due time 2 business hours later', async () => {
    const settings = await readInstanceSettings(service.db);
    const { rows } = await service.db.query<{ key: string; detected_at: Date; due_at: Date; sent_at: Date | null; state: string; recipients: string[] }>(
      "SELECT key, detected_at, due_at, sent_at, state, recipients FROM email_outbox WHERE state <> 'superseded'",
    );
    expect(rows).toHaveLength(7);
    for (const row of rows) {
      expect(row.detected_at.toISOString()).toBe(ANCHOR.toISOString());
      expect(row.due_at.toISOString()).toBe(alertDueAt(ANCHOR, settings).toISOString());
      if (row.state === 'sent') {
        expect(row.sent_at!.getTime()).toBeLessThanOrEqual(row.due_at.getTime());
        expect(row.recipients).toEqual(CONTACTS);
      }
    }
  });
});

describe('a restart', () => {
  it('neither loses nor repeats an alert', async () => {
    const { databaseUrl, dataDir } = service;
    await alerts.stop();
    await service.stop();
    // All roles this time: the workers tier's alerts component sends what was left at start.
    service = await startTestService({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, SMTP_URL: sink.url });
    const deadline = Date.now() + 20_000;
    while (!keysReceived().includes(`telemetry_stopped:checkout-agent:${Y}T20`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    alerts = component(service);
    expect((await alerts.detect()).recorded).toEqual([]);
    expect((await alerts.deliver()).sent).toEqual([]);
    await new Promise((r) => setTimeout(r, 1_000));
    const keys = keysReceived();
    expect(keys).toHaveLength(7);
    expect(new Set(keys).size).toBe(7);
    expect(keys).toContain(`telemetry_stopped:checkout-agent:${Y}T20`);
    const telemetry = alertMails().find((m) => m.headers['x-aor-key']!.startsWith('telemetry_stopped'))!;
    expect(telemetry.text).toContain(`${Y}T20:10:00.000Z`);
    const { rows } = await service.db.query("SELECT count(*)::int AS n FROM email_outbox WHERE kind <> 'weekly_report' AND state = 'sent'");
    expect(rows[0]!.n).toBe(7);
  });
});
