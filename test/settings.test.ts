// Instance settings over HTTP: admins read and patch; members and anonymous callers cannot; every
// field rule answers 422 naming the field, and a refused patch changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../lib/auth/users.ts';
import { readInstanceSettings } from '../lib/instance-settings.ts';
import { call, startTestService, type TestService } from './helpers/service.ts';

const PASSWORD = 'settings test pw';
let service: TestService;
let adminToken: string;
let memberToken: string;

const signIn = async (email: string) => (await call(service.baseUrl, 'POST', '/auth/login', { body: { username: email, password: PASSWORD } })).body.access_token as string;
const patch = (body: unknown, token = adminToken) => call(service.baseUrl, 'PATCH', '/api/v1/settings', { token, body });

beforeAll(async () => {
  service = await startTestService({ ROLES: 'ingest,api' });
  await createUser(service.db, { email: 'admin@example.com', password: PASSWORD, role: 'admin' }, 10);
  await createUser(service.db, { email: 'member@example.com', password: PASSWORD, role: 'member' }, 10);
  adminToken = await signIn('admin@example.com');
  memberToken = await signIn('member@example.com');
});
afterAll(async () => {
  await service?.stop();
});

describe('GET /api/v1/settings', () => {
  it('shows an admin every setting with the operator defaults', async () => {
    const { status, body } = await call(service.baseUrl, 'GET', '/api/v1/settings', { token: adminToken });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      company_name: 'Unnamed company', plan: 'professional', agent_limit: 100, display_currency: 'USD', usd_rate: 1,
      alert_contacts: [], signup_enabled: false, code_scan_folders: [], business_hours_start: 9, business_hours_end: 17,
      business_days: [1, 2, 3, 4, 5], time_zone: 'UTC', report_weekday: 5, report_hour: 9,
    });
    expect(body).not.toHaveProperty('jwt_secret');
  });

  it('refuses members (403 admin_required) and anonymous callers (401)', async () => {
    const member = await call(service.baseUrl, 'GET', '/api/v1/settings', { token: memberToken });
    expect(member.status).toBe(403);
    expect(member.body.code).toBe('admin_required');
    expect((await call(service.baseUrl, 'GET', '/api/v1/settings')).status).toBe(401);
  });
});

describe('PATCH /api/v1/settings', () => {
  it('changes the fields sent, keeps the others, and stores them', async () => {
    const before = await readInstanceSettings(service.db);
    const { status, body } = await patch({
      alert_contacts: ['ops@example.com', 'Finance.Team+alerts@sub.example.co.uk'],
      display_currency: 'EUR', usd_rate: 0.92, signup_enabled: true, code_scan_folders: ['/srv/agents', '/opt/bots'],
      business_hours_start: 8, business_hours_end: 18, business_days: [5, 1, 2, 3, 4], time_zone: 'Europe/Paris',
      report_weekday: 4, report_hour: 7,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      alert_contacts: ['ops@example.com', 'Finance.Team+alerts@sub.example.co.uk'], display_currency: 'EUR', usd_rate: 0.92,
      signup_enabled: true, code_scan_folders: ['/srv/agents', '/opt/bots'], business_hours_start: 8, business_hours_end: 18,
      business_days: [1, 2, 3, 4, 5], time_zone: 'Europe/Paris', report_weekday: 4, report_hour: 7, company_name: 'Unnamed company',
    });
    const stored = await readInstanceSettings(service.db);
    expect(stored.alert_contacts).toEqual(['ops@example.com', 'Finance.Team+alerts@sub.example.co.uk']);
    expect(stored.time_zone).toBe('Europe/Paris');
    expect(Date.parse(stored.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    const again = await patch({ report_hour: 9 });
    expect(again.body).toMatchObject({ report_hour: 9, report_weekday: 4, display_currency: 'EUR', usd_rate: 0.92 });
  });

  it('takes at most 3 alert contacts, each a valid email, none twice, and [] clears them', async () => {
    const four = await patch({ alert_contacts: ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'] });
    expect(four.status).toBe(422);
    expect(four.body.errors.map((e: { path: string }) => e.path)).toContain('/alert_contacts');
    for (const bad of ['not-an-email', 'a@b', 'two@@example.com', 'space @example.com', 'a@exa mple.com', 'x@example.c0m']) {
      const answer = await patch({ alert_contacts: ['ok@example.com', bad] });
      expect(answer.status, bad).toBe(422);
      expect(answer.body.errors[0].path, bad).toBe('/alert_contacts/1');
    }
    const dup = await patch({ alert_contacts: ['ops@example.com', 'OPS@example.com'] });
    expect(dup.status).toBe(422);
    expect(dup.body.errors).toEqual([{ path: '/alert_contacts/1', message: 'is listed twice' }]);
    expect((await readInstanceSettings(service.db)).alert_contacts).toHaveLength(2);
    expect((await patch({ alert_contacts: [] })).body.alert_contacts).toEqual([]);
  });

  it('keeps company name, plan and agent limit to the operator script', async () => {
    const answer = await patch({ plan: 'enterprise', agent_limit: 5000, alert_contacts: [] });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/agent_limit', '/plan']);
    expect((await patch({ company_name: 'Evil' })).body.errors[0].message).toMatch(/operator script/);
    const stored = await readInstanceSettings(service.db);
    expect([stored.plan, stored.agent_limit, stored.company_name]).toEqual(['professional', 100, 'Unnamed company']);
  });

  it('checks currency with its rate, hours, days, time zone, report slot and folders', async () => {
    const cases: Array<[unknown, string]> = [
      [{ display_currency: 'GBP' }, '/usd_rate'],
      [{ display_currency: 'XYZ', usd_rate: 2 }, '/display_currency'],
      [{ display_currency: 'USD', usd_rate: 2 }, '/usd_rate'],
      [{ usd_rate: 0 }, '/usd_rate'],
      [{ business_hours_start: 18 }, '/business_hours_start'],
      [{ business_hours_start: 10, business_hours_end: 10 }, '/business_hours_end'],
      [{ business_hours_end: 25 }, '/business_hours_end'],
      [{ business_days: [] }, '/business_days'],
      [{ business_days: [1, 8] }, '/business_days/1'],
      [{ business_days: [1, 1] }, '/business_days/1'],
      [{ time_zone: 'Mars/Olympus_Mons' }, '/time_zone'],
      [{ report_weekday: 0 }, '/report_weekday'],
      [{ report_hour: 24 }, '/report_hour'],
      [{ code_scan_folders: ['relative/path'] }, '/code_scan_folders/0'],
      [{ code_scan_folders: ['/srv/../etc'] }, '/code_scan_folders/0'],
      [{ signup_enabled: 'yes' }, '/signup_enabled'],
      [{ unknown_field: 1 }, '/unknown_field'],
    ];
    const before = await readInstanceSettings(service.db);
    for (const [body, path] of cases) {
      const answer = await patch(body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(answer.body.errors.map((e: { path: string }) => e.path), JSON.stringify(body)).toContain(path);
    }
    const after = await readInstanceSettings(service.db);
    expect({ ...after, updated_at: '' }).toEqual({ ...before, updated_at: '' });
    expect((await patch({})).status).toBe(422);
    expect((await call(service.baseUrl, 'PATCH', '/api/v1/settings', { token: adminToken, rawBody: '{nope', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    // Switching back to USD needs no rate: USD is always 1.
    expect((await patch({ display_currency: 'USD' })).body).toMatchObject({ display_currency: 'USD', usd_rate: 1 });
  });

  it('refuses members and anonymous callers and changes nothing', async () => {
    const member = await patch({ signup_enabled: false, alert_contacts: ['member@example.com'] }, memberToken);
    expect(member.status).toBe(403);
    expect((await call(service.baseUrl, 'PATCH', '/api/v1/settings', { body: { report_hour: 1 } })).status).toBe(401);
    const stored = await readInstanceSettings(service.db);
    expect(stored.alert_contacts).not.toContain('member@example.com');
    expect(stored.report_hour).not.toBe(1);
  });
});
