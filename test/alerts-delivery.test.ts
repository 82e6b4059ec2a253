// The outbox sender and its transports, on a real PostgreSQL and real SMTP servers: the .eml
// outbox when no SMTP_URL is set, retries with backoff while the server is away, a permanent
// refusal, the last attempt, no contacts, and a send interrupted by a crash. Plus the wall-clock
// rules: 2 business hours in the instance's zone, ISO weeks, and when the report is due.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addBusinessHours, isoWeek, type BusinessHours } from '../lib/email/business-hours.ts';
import { MAX_ATTEMPTS, deliverDue, enqueueEmail } from '../lib/email/outbox.ts';
import { createMailTransport, outboxDir } from '../lib/email/transport.ts';
import { createLogger } from '../lib/log.ts';
import { createDatabase, type Database } from '../lib/postgres/database.ts';
import { migrate } from '../lib/postgres/migrate.ts';
import { dueReportKey } from '../workers/reports/component.ts';
import { createTestDatabase } from './helpers/database.ts';
import { parseMail, startSmtpSink } from './helpers/smtp-sink.ts';

const logger = createLogger('silent');
const T0 = new Date('2026-03-02T10:00:00Z');
const MINUTE = 60_000;
let db: Database;

const enqueue = (key: string, detectedAt = T0) =>
  enqueueEmail(db, { key, kind: 'test', details: {}, message: { subject: `Subject of ${key}`, text: `Body of ${key}\n`, html: `<p>Body of ${key}</p>` }, detectedAt, dueAt: new Date(detectedAt.getTime() + 7_200_000) });
const row = async (key: string) => (await db.query('SELECT state, attempts, next_attempt_at, last_error, recipients, sent_at FROM email_outbox WHERE key = $1', [key])).rows[0]!;
const later = (minutes: number) => new Date(T0.getTime() + minutes * MINUTE);

beforeAll(async () => {
  db = createDatabase(await createTestDatabase(), { max: 2 });
  await migrate(db);
});
beforeEach(async () => {
  await db.query('DELETE FROM email_outbox');
  await db.query("UPDATE instance_settings SET alert_contacts = '{ops@example.com}'");
});
afterAll(async () => {
  await db?.close();
});

describe('outbox delivery', () => {
  it('writes each message as an .eml file under DATA_DIR/outbox when no SMTP_URL is set', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'aor-outbox-'));
    const transport = createMailTransport({ from: 'Agent Ops <aor@example.com>', dataDir, logger });
    expect(await enqueue('file:1')).toBe(true);
    expect(await enqueue('file:1')).toBe(false);
    expect((await deliverDue({ db, transport, logger }, T0)).sent).toEqual(['file:1']);
    const files = (await fs.readdir(outboxDir(dataDir))).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const mail = parseMail(await fs.readFile(path.join(outboxDir(dataDir), files[0]!), 'utf8'), '', []);
    expect(mail.subject).toBe('Subject of file:1');
    expect(mail.headers.to).toBe('ops@example.com');
    expect(mail.headers['x-aor-key']).toBe('file:1');
    expect(mail.text).toBe('Body of file:1\n');
    expect((await deliverDue({ db, transport, logger }, later(5))).sent).toEqual([]);
    expect(await fs.readdir(outboxDir(dataDir))).toHaveLength(1);
  });

  it('retries with backoff while the SMTP server is away, then sends once it is back', async () => {
    const first = await startSmtpSink();
    const port = Number(new URL(first.url).port);
    await first.stop();
    const transport = createMailTransport({ smtpUrl: first.url, from: 'aor@example.com', dataDir: os.tmpdir(), logger });
    await enqueue('retry:1');
    expect((await deliverDue({ db, transport, logger }, T0)).retried).toEqual(['retry:1']);
    let r = await row('retry:1');
    expect(r).toMatchObject({ state: 'pending', attempts: 1 });
    expect(r.last_error).toMatch(/ECONNREFUSED|connect/i);
    expect(r.next_attempt_at.toISOString()).toBe(later(1).toISOString());
    expect((await deliverDue({ db, transport, logger }, later(0.5))).retried).toEqual([]); // not due yet
    expect((await deliverDue({ db, transport, logger }, later(1))).retried).toEqual(['retry:1']);
    expect((await row('retry:1')).next_attempt_at.toISOString()).toBe(later(3).toISOString()); // 2 minutes after attempt 2
    const sink = await startSmtpSink({ port });
    try {
      expect((await deliverDue({ db, transport, logger }, later(3))).sent).toEqual(['retry:1']);
      r = await row('retry:1');
      expect(r).toMatchObject({ state: 'sent', attempts: 3, recipients: ['ops@example.com'] });
      expect(sink.messages.map((m) => m.subject)).toEqual(['Subject of retry:1']);
    } finally {
      await sink.stop();
      transport.close();
    }
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts, and at once on a permanent (5xx) refusal`, async () => {
    const gone = await startSmtpSink();
    await gone.stop();
    const down = createMailTransport({ smtpUrl: gone.url, from: 'aor@example.com', dataDir: os.tmpdir(), logger });
    await enqueue('give-up:1');
    for (let i = 1; i < MAX_ATTEMPTS; i++) expect((await deliverDue({ db, transport: down, logger }, later(i * 120))).retried).toEqual(['give-up:1']);
    expect((await deliverDue({ db, transport: down, logger }, later(MAX_ATTEMPTS * 120))).failed).toEqual(['give-up:1']);
    expect(await row('give-up:1')).toMatchObject({ state: 'failed', attempts: MAX_ATTEMPTS });

    const refusing = await startSmtpSink({ rejectRecipients: true });
    const refused = createMailTransport({ smtpUrl: refusing.url, from: 'aor@example.com', dataDir: os.tmpdir(), logger });
    try {
      await enqueue('refused:1');
      expect((await deliverDue({ db, transport: refused, logger }, T0)).failed).toEqual(['refused:1']);
      expect(await row('refused:1')).toMatchObject({ state: 'failed', attempts: 1 });
      expect(refusing.messages).toHaveLength(0);
    } finally {
      await refusing.stop();
      refused.close();
    }
  });

  it('records an item as skipped when nobody is an alert contact', async () => {
    await db.query("UPDATE instance_settings SET alert_contacts = '{}'");
    const transport = createMailTransport({ from: 'aor@example.com', dataDir: await fs.mkdtemp(path.join(os.tmpdir(), 'aor-outbox-')), logger });
    await enqueue('nobody:1');
    expect((await deliverDue({ db, transport, logger }, T0)).skipped).toEqual(['nobody:1']);
    expect(await row('nobody:1')).toMatchObject({ state: 'skipped', last_error: 'no alert contacts are configured' });
  });

  it('sends again an item whose sender died mid-send (expired lease), with the same Message-ID', async () => {
    const sink = await startSmtpSink();
    const transport = createMailTransport({ smtpUrl: sink.url, from: 'aor@example.com', dataDir: os.tmpdir(), logger });
    try {
      await enqueue('crash:1');
      // A sender claimed it and died: state sending, lease running out 2 minutes later.
      await db.query("UPDATE email_outbox SET state = 'sending', attempts = 1, lease_until = $1 WHERE key = 'crash:1'", [later(2)]);
      expect((await deliverDue({ db, transport, logger }, later(1))).sent).toEqual([]); // lease still held
      expect((await deliverDue({ db, transport, logger }, later(3))).sent).toEqual(['crash:1']);
      const id = (await db.query("SELECT id FROM email_outbox WHERE key = 'crash:1'")).rows[0]!.id;
      expect(sink.messages[0]!.headers['message-id']).toBe(`<${id}@agent-ops-registry.local>`);
    } finally {
      await sink.stop();
      transport.close();
    }
  });
});

describe('wall-clock rules', () => {
  const utc: BusinessHours = { startHour: 9, endHour: 17, days: [1, 2, 3, 4, 5], timeZone: 'UTC' };
  const iso = (d: Date) => d.toISOString();

  it('counts 2 business hours inside business hours only', () => {
    expect(iso(addBusinessHours(new Date('2026-03-02T10:00:00Z'), 2, utc))).toBe('2026-03-02T12:00:00.000Z'); // Monday
    expect(iso(addBusinessHours(new Date('2026-03-06T16:30:00Z'), 2, utc))).toBe('2026-03-09T10:30:00.000Z'); // Friday → Monday
    expect(iso(addBusinessHours(new Date('2026-03-07T03:00:00Z'), 2, utc))).toBe('2026-03-09T11:00:00.000Z'); // Saturday night
    expect(iso(addBusinessHours(new Date('2026-03-02T10:00:20Z'), 2, utc))).toBe('2026-03-02T12:01:00.000Z'); // whole minutes
    // Paris, across the switch to summer time (29 March 2026): Friday 16:00 CET + 1 h, Monday 09:00-10:00 CEST.
    const paris: BusinessHours = { ...utc, timeZone: 'Europe/Paris' };
    expect(iso(addBusinessHours(new Date('2026-03-27T15:00:00Z'), 2, paris))).toBe('2026-03-30T08:00:00.000Z');
    // A Sunday-to-Thursday week in Dubai (UTC+4).
    const dubai: BusinessHours = { startHour: 8, endHour: 16, days: [7, 1, 2, 3, 4], timeZone: 'Asia/Dubai' };
    expect(iso(addBusinessHours(new Date('2026-03-06T10:00:00Z'), 2, dubai))).toBe('2026-03-08T06:00:00.000Z'); // Friday → Sunday 10:00
  });

  it('names ISO weeks and finds the week whose report is due', () => {
    expect(isoWeek(2026, 1, 1)).toBe('2026-W01');
    expect(isoWeek(2027, 1, 1)).toBe('2026-W53');
    expect(isoWeek(2024, 12, 30)).toBe('2025-W01');
    const settings = { report_weekday: 5, report_hour: 9, time_zone: 'Europe/Paris' };
    expect(dueReportKey(new Date('2026-11-20T07:59:00Z'), settings)).toBeUndefined(); // Friday 08:59 in Paris
    expect(dueReportKey(new Date('2026-11-20T08:00:00Z'), settings)).toBe('weekly_report:2026-W47');
    expect(dueReportKey(new Date('2026-11-22T22:59:00Z'), settings)).toBe('weekly_report:2026-W47'); // Sunday 23:59, catching up
    expect(dueReportKey(new Date('2026-11-22T23:00:00Z'), settings)).toBeUndefined(); // Monday 00:00 in Paris: a new week
  });
});
