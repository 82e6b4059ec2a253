// The weekly health report (decisions §10) on a driven clock: with the report set to Friday
// 09:00 Europe/Paris, ticks before that send nothing, the tick at 09:00 sends one report to the
// alert contacts through a real SMTP server, later ticks and a restart send no second one, and
// the next Friday sends the next week's. The report carries its facts and four PNG charts.
import { randomUUID } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../lib/auth/users.ts';
import { insertSignals } from '../lib/analytics/signals.ts';
import { addDays, utcDay } from '../lib/analytics/time.ts';
import { isoWeek, zonedParts } from '../lib/email/business-hours.ts';
import { createLogger } from '../lib/log.ts';
import type { SignalRecord } from '../schemas/analytics-rows.ts';
import { RISK_COLOURS } from '../workers/reports/charts.ts';
import { createWeeklyReportComponent, type WeeklyReportComponent } from '../workers/reports/component.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from './helpers/smtp-sink.ts';

const ZONE = 'Europe/Paris';
/** The instant a Paris wall clock shows `hh:mm` on `day` (Paris is UTC+1 or UTC+2). */
function paris(day: string, hh: number, mm = 0): Date {
  for (const offset of [1, 2]) {
    const t = new Date(Date.parse(`${day}T00:00:00Z`) + ((hh - offset) * 60 + mm) * 60_000);
    const p = zonedParts(t, ZONE);
    if (p.hour === hh && p.minute === mm && utcDay(new Date(Date.UTC(p.year, p.month - 1, p.day))) === day) return t;
  }
  throw new Error(`no ${hh}:${mm} in Paris on ${day}`);
}
// The last Friday before today, so every event of the report's week lies in the past.
let FRIDAY = addDays(utcDay(new Date()), -1);
while (new Date(`${FRIDAY}T12:00:00Z`).getUTCDay() !== 5) FRIDAY = addDays(FRIDAY, -1);
const [fy, fm, fd] = FRIDAY.split('-').map(Number) as [number, number, number];
const WEEK = isoWeek(fy, fm, fd);

let clock = new Date(0);
let sink: SmtpSink;
let service: TestService;
let reports: WeeklyReportComponent;
const ids: Record<string, string> = {};

const component = (s: TestService) =>
  createWeeklyReportComponent({
    config: { smtpUrl: sink.url, smtpFrom: 'Agent Ops <aor@example.com>', dataDir: s.dataDir },
    logger: createLogger('silent'), db: s.db, analytics: s.analytics!, clock: () => clock,
  });

async function addAgent(name: string, f: { status?: string; risk?: string; department?: string; source?: string; created?: string; pii?: boolean; discrepancies?: unknown[] } = {}) {
  const { rows } = await service.db.query<{ id: string }>(
    `INSERT INTO agents (external_id, name, framework, status, risk_level, department, source, created_at, contains_pii, discrepancies, owner_email)
     VALUES ($1, $1, 'LANGCHAIN', $2, $3, $4, $5, COALESCE($6::timestamptz, now()), $7, $8, 'owner@example.com') RETURNING id::text AS id`,
    [name, f.status ?? 'APPROVED', f.risk ?? 'LOW', f.department ?? null, f.source ?? 'api', f.created ?? null, f.pii ?? false, JSON.stringify(f.discrepancies ?? [])],
  );
  ids[name] = rows[0]!.id;
}

async function spend(agent: string, usd: number, occurredAt: string) {
  const answer = await call(service.baseUrl, 'POST', '/api/v1/costs/events', {
    body: { agent_id: agent, job_id: `job-${randomUUID()}`, model: 'gpt-4o', provider: 'openai', input_tokens: 0, output_tokens: Math.round(usd * 100_000), occurred_at: occurredAt },
  });
  expect(answer.status).toBe(202);
  expect(answer.body.agent_id).toBe(ids[agent]);
}

/** Pixels of a PNG as written by our encoder (8-bit RGB, filter None on every row). */
function pngPixels(png: Buffer): { width: number; height: number; colours: Set<string> } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    if (png.toString('ascii', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const colours = new Set<string>();
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * (width * 3 + 1) + 1 + x * 3;
      colours.add(`${raw[i]},${raw[i + 1]},${raw[i + 2]}`);
    }
  }
  return { width, height, colours };
}

beforeAll(async () => {
  sink = await startSmtpSink();
  service = await startTestService({ ROLES: 'ingest,api', SMTP_URL: sink.url });
  await createUser(service.db, { email: 'admin@example.com', password: 'report test pw', role: 'admin' }, 10);
  const token = (await call(service.baseUrl, 'POST', '/auth/login', { body: { username: 'admin@example.com', password: 'report test pw' } })).body.access_token;
  const settings = { alert_contacts: ['ops@example.com', 'cto@example.com'], time_zone: ZONE, report_weekday: 5, report_hour: 9 };
  expect((await call(service.baseUrl, 'PATCH', '/api/v1/settings', { token, body: settings })).status).toBe(200);
  expect((await call(service.baseUrl, 'POST', '/api/v1/costs/budgets', { token, body: { department: 'Sales', month: `${FRIDAY.slice(0, 7)}-01`, budget_amount: 100 } })).status).toBe(201);

  await addAgent('ops-bot', { department: 'Ops' });
  await addAgent('sales-bot', { department: 'Sales' });
  await addAgent('refund-bot', { department: 'Support' });
  await addAgent('approved-high', { risk: 'HIGH', discrepancies: [{ kind: 'undeclared_llm_calls', detail: 'declares none, 3 cost events', declared: false, observed: true }] });
  await addAgent('pending-critical', { status: 'PENDING_REVIEW', risk: 'CRITICAL' });
  await addAgent('shadow-scraper', { status: 'DISCOVERED', risk: 'CRITICAL', source: 'discovery', created: `${addDays(FRIDAY, -2)}T10:00:00Z`, pii: true });
  await addAgent('otel-found', { status: 'DISCOVERED', risk: 'MEDIUM', source: 'telemetry', created: `${addDays(FRIDAY, -1)}T10:00:00Z` });
  await addAgent('last-month-find', { status: 'DISCOVERED', source: 'discovery', created: `${addDays(FRIDAY, -40)}T10:00:00Z` });
  await new Promise((r) => setTimeout(r, 1_500)); // the ingest directory polls the registry every second

  for (let d = 20; d >= 1; d--) await spend('ops-bot', 2, `${addDays(FRIDAY, -d)}T10:00:00Z`);
  await spend('sales-bot', 85, `${FRIDAY}T01:00:00Z`);
  const signals: SignalRecord[] = [];
  for (let d = 13; d >= 0; d--) {
    for (let i = 0; i < 10; i++) {
      signals.push({
        signal_id: randomUUID(), agent_id: ids['refund-bot']!, agent_external_id: 'refund-bot', job_id: `job-${d}-${i}`, overall_passed: false,
        latency_ms: 100, model: null, token_input: null, token_output: null, received_at: `${addDays(FRIDAY, -d)}T0${i % 7}:00:00Z`,
        checks: [{ check_id: 'refund_policy', severity: 'HIGH', passed: d > 0 || i < 4 }, { check_id: 'tone', severity: 'LOW', passed: i > 0 }],
      });
    }
  }
  await insertSignals(service.analytics!, signals, 'weekly-report-test');
  reports = component(service);
});
afterAll(async () => {
  await reports?.stop();
  await service?.stop();
  await sink?.stop();
});

describe('weekly health report', () => {
  let mail: ReceivedMail;

  it('is sent once, on Friday at the configured hour in the configured time zone', async () => {
    for (const t of [paris(addDays(FRIDAY, -1), 23, 59), paris(FRIDAY, 8, 59)]) {
      clock = t;
      expect(await reports.tick(), t.toISOString()).toBeUndefined();
    }
    // With nobody to send it to, it is not built; contacts set later that week still get it.
    const contacts = (await service.db.query('SELECT alert_contacts FROM instance_settings')).rows[0]!.alert_contacts;
    await service.db.query("UPDATE instance_settings SET alert_contacts = '{}'");
    clock = paris(FRIDAY, 9, 0);
    expect(await reports.tick()).toBeUndefined();
    await service.db.query('UPDATE instance_settings SET alert_contacts = $1', [contacts]);
    expect(sink.messages).toHaveLength(0);
    expect(await reports.tick()).toBe(`weekly_report:${WEEK}`);
    mail = (await sink.waitFor(1))[0]!;
    for (const t of [paris(FRIDAY, 9, 5), paris(FRIDAY, 17, 0), paris(addDays(FRIDAY, 1), 10, 0), paris(addDays(FRIDAY, 2), 23, 59)]) {
      clock = t;
      expect(await reports.tick(), t.toISOString()).toBeUndefined();
    }
    expect(sink.messages).toHaveLength(1);
    expect(mail.subject).toBe(`[Unnamed company] Weekly health report ${WEEK}`);
    expect(mail.envelopeTo.sort()).toEqual(['cto@example.com', 'ops@example.com']);
    expect(mail.headers['x-aor-key']).toBe(`weekly_report:${WEEK}`);
  });

  it('carries agents by status and risk, accuracy and worst checks, spend against budget, discrepancies and discoveries', () => {
    const text = mail.text;
    expect(text).toContain('8 agents; 0 without an owner.');
    expect(text).toContain('APPROVED: 4 (1 HIGH, 3 LOW)');
    expect(text).toContain('PENDING_REVIEW: 1 (1 CRITICAL)');
    expect(text).toContain('DISCOVERED: 3 (1 CRITICAL, 1 MEDIUM, 1 LOW)');
    // 7 days x 10 runs of 2 checks: refund_policy 64/70, tone 63/70.
    expect(text).toContain('Pass rate this week: 90.7 % of 140 check runs');
    expect(text).toContain('refund-bot / tone (LOW): 90.0 % of 70 runs, trend STABLE');
    expect(text).toContain('refund-bot / refund_policy (HIGH): 91.4 % of 70 runs, trend DEGRADING');
    expect(text).toContain('Spend this week: 97.00 USD');
    expect(text).toContain('Sales: 85.00 USD of 100.00 USD (85.0 %)');
    expect(text).toContain('approved-high: undeclared_llm_calls');
    expect(text).toContain('shadow-scraper (found by discovery, DISCOVERED, handles PII)');
    expect(text).toContain('otel-found (found by telemetry, DISCOVERED)');
    expect(text).not.toContain('last-month-find');
    expect(mail.html).toContain('shadow-scraper');
  });

  it('has four PNG charts, inline in the HTML by cid', () => {
    const cids = [...mail.html.matchAll(/src="cid:([^"]+)"/g)].map((m) => m[1]);
    expect(cids).toEqual(['agents-by-status-risk', 'worst-checks', 'daily-spend', 'spend-vs-budget']);
    for (const cid of cids) {
      const image = mail.attachments.find((a) => a.cid === cid);
      expect(image?.contentType, cid).toBe('image/png');
      expect(pngPixels(image!.content).width).toBe(600);
    }
    const colour = (rgb: readonly number[]) => rgb.join(',');
    const agents = pngPixels(mail.attachments.find((a) => a.cid === 'agents-by-status-risk')!.content);
    for (const risk of ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']) expect(agents.colours.has(colour(RISK_COLOURS[risk]!)), risk).toBe(true);
    const budget = pngPixels(mail.attachments.find((a) => a.cid === 'spend-vs-budget')!.content);
    expect(budget.colours.has(colour(RISK_COLOURS.HIGH!))).toBe(true); // 85 %: past the 80 % line
    const worst = pngPixels(mail.attachments.find((a) => a.cid === 'worst-checks')!.content);
    expect(worst.colours.has(colour(RISK_COLOURS.CRITICAL!))).toBe(true); // the DEGRADING line
  });

  it('is not sent again after a restart, and the next Friday brings the next week', async () => {
    const { databaseUrl, dataDir } = service;
    await reports.stop();
    await service.stop();
    service = await startTestService({ ROLES: 'ingest,api', DATABASE_URL: databaseUrl, DATA_DIR: dataDir, SMTP_URL: sink.url });
    reports = component(service);
    clock = paris(FRIDAY, 9, 30);
    expect(await reports.tick()).toBeUndefined();
    const next = addDays(FRIDAY, 7);
    const [ny, nm, nd] = next.split('-').map(Number) as [number, number, number];
    clock = paris(next, 8, 0);
    expect(await reports.tick()).toBeUndefined();
    clock = paris(next, 9, 1);
    expect(await reports.tick()).toBe(`weekly_report:${isoWeek(ny, nm, nd)}`);
    await sink.waitFor(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(sink.messages.map((m) => m.headers['x-aor-key'])).toEqual([`weekly_report:${WEEK}`, `weekly_report:${isoWeek(ny, nm, nd)}`]);
  });
});
