// The email outbox in PostgreSQL (migration 005). Detection and the report job only INSERT; one
// sender delivers. The unique key makes each alert once-per-condition-and-period across restarts
// and processes; the lease makes a crash mid-send a retry, not a loss.
import type { Database, Queryable } from '../postgres/database.ts';
import type { Logger } from '../log.ts';
import { readInstanceSettings } from '../instance-settings.ts';
import type { MailAttachment, MailTransport } from './transport.ts';

export interface StoredAttachment {
  filename: string;
  contentType: string;
  cid?: string;
  /** base64 of the bytes (jsonb holds text only). */
  base64: string;
}

export interface StoredMessage {
  subject: string;
  text: string;
  html?: string;
  attachments?: StoredAttachment[];
}

export type OutboxState = 'pending' | 'sending' | 'sent' | 'failed' | 'skipped' | 'superseded';

export interface OutboxItem {
  key: string;
  kind: string;
  details: Record<string, unknown>;
  message: StoredMessage;
  detectedAt: Date;
  dueAt: Date;
  /** `superseded` records a condition that must never be sent (see the budget alerts). */
  state?: 'pending' | 'superseded';
}

export const MAX_ATTEMPTS = 8;
const LEASE_MS = 2 * 60_000;
const FIRST_RETRY_MS = 60_000;
const MAX_RETRY_MS = 60 * 60_000;

export function storeAttachments(attachments: readonly MailAttachment[]): StoredAttachment[] {
  return attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, cid: a.cid, base64: a.content.toString('base64') }));
}

/** Inserts the item unless its key exists; true when this call recorded it. */
export async function enqueueEmail(db: Queryable, item: OutboxItem): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO email_outbox (key, kind, state, details, message, detected_at, due_at, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $6)
     ON CONFLICT (key) DO NOTHING`,
    [item.key, item.kind, item.state ?? 'pending', JSON.stringify(item.details), JSON.stringify(item.message), item.detectedAt, item.dueAt],
  );
  return rowCount === 1;
}

/** Delay before attempt n+1 after n failed attempts: 1, 2, 4 ... minutes, at most an hour. */
export function retryDelayMs(attempts: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
}

interface ClaimedRow {
  id: string;
  key: string;
  kind: string;
  message: StoredMessage;
  attempts: number;
  due_at: Date;
}

export interface DeliveryResult {
  sent: string[];
  retried: string[];
  failed: string[];
  skipped: string[];
}

export interface SenderDeps {
  db: Database;
  transport: MailTransport;
  logger: Logger;
}

// SMTP 5xx is a permanent refusal (RFC 5321 §4.2.1): retrying the same message cannot succeed.
function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

async function claim(db: Database, now: Date, limit: number): Promise<ClaimedRow[]> {
  const { rows } = await db.query<ClaimedRow>(
    `UPDATE email_outbox SET state = 'sending', attempts = attempts + 1, lease_until = $2, updated_at = now()
     WHERE id IN (
       SELECT id FROM email_outbox
       WHERE (state = 'pending' AND next_attempt_at <= $1) OR (state = 'sending' AND lease_until < $1)
       ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
     RETURNING id, key, kind, message, attempts, due_at`,
    [now, new Date(now.getTime() + LEASE_MS), limit],
  );
  return rows;
}

async function finish(db: Database, id: string, state: OutboxState, fields: { error?: string; recipients?: string[]; sentAt?: Date; nextAt?: Date }): Promise<void> {
  await db.query(
    `UPDATE email_outbox SET state = $2, last_error = $3, recipients = COALESCE($4, recipients), sent_at = $5,
            next_attempt_at = COALESCE($6, next_attempt_at), lease_until = NULL, updated_at = now()
     WHERE id = $1`,
    [id, state, fields.error ?? null, fields.recipients ?? null, fields.sentAt ?? null, fields.nextAt ?? null],
  );
}

/**
 * Sends every due item to the instance's alert contacts (read now, so a contact changed after
 * detection still gets it). Called by the schedulers; safe to run in several processes at once.
 */
export async function deliverDue(deps: SenderDeps, now: Date, limit = 50): Promise<DeliveryResult> {
  const result: DeliveryResult = { sent: [], retried: [], failed: [], skipped: [] };
  const rows = await claim(deps.db, now, limit);
  if (rows.length === 0) return result;
  const contacts = (await readInstanceSettings(deps.db)).alert_contacts;
  for (const row of rows) {
    const log = deps.logger.child({ outbox_key: row.key, kind: row.kind, attempt: row.attempts });
    if (contacts.length === 0) {
      await finish(deps.db, row.id, 'skipped', { error: 'no alert contacts are configured' });
      log.warn('email not sent: no alert contacts are configured (PATCH /api/v1/settings)');
      result.skipped.push(row.key);
      continue;
    }
    try {
      await deps.transport.send({
        to: contacts,
        subject: row.message.subject,
        text: row.message.text,
        html: row.message.html,
        attachments: row.message.attachments?.map((a) => ({ filename: a.filename, contentType: a.contentType, cid: a.cid, content: Buffer.from(a.base64, 'base64') })),
        messageId: `<${row.id}@agent-ops-registry.local>`,
        headers: { 'X-AOR-Key': row.key, 'X-AOR-Kind': row.kind },
      });
      await finish(deps.db, row.id, 'sent', { recipients: contacts, sentAt: now });
      if (now.getTime() > new Date(row.due_at).getTime()) log.warn('email sent after its due time', { due_at: row.due_at });
      else log.info('email sent', { to: contacts });
      result.sent.push(row.key);
    } catch (error) {
      const message = (error as Error).message?.slice(0, 500) ?? String(error);
      if (isPermanent(error) || row.attempts >= MAX_ATTEMPTS) {
        await finish(deps.db, row.id, 'failed', { error: message });
        log.error('email failed for good', { error: message });
        result.failed.push(row.key);
      } else {
        const nextAt = new Date(now.getTime() + retryDelayMs(row.attempts));
        await finish(deps.db, row.id, 'pending', { error: message, nextAt });
        log.warn('email not sent; will retry', { error: message, next_attempt_at: nextAt.toISOString() });
        result.retried.push(row.key);
      }
    }
  }
  return result;
}
