// How mail leaves the instance (decisions §1): any SMTP server named by SMTP_URL, or, with no
// SMTP_URL, .eml files in DATA_DIR/outbox that an operator can open in any mail client. Both
// paths build the message with nodemailer, so the file is byte-for-byte what SMTP would carry.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import type { Logger } from '../log.ts';

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
  /** Content-ID for inline images: the HTML refers to it as `cid:<cid>`. */
  cid?: string;
}

export interface OutgoingMail {
  to: string[];
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
  /** A stable Message-ID (`<id@host>`): a resend after a crash carries the same one. */
  messageId?: string;
  headers?: Record<string, string>;
}

export interface MailTransport {
  readonly kind: 'smtp' | 'file';
  send(mail: OutgoingMail): Promise<{ messageId: string; accepted: string[] }>;
  close(): void;
}

export interface MailTransportOptions {
  smtpUrl?: string;
  from: string;
  dataDir: string;
  logger: Logger;
}

export function outboxDir(dataDir: string): string {
  return path.join(dataDir, 'outbox');
}

function toNodemailer(from: string, mail: OutgoingMail): Mail.Options {
  return {
    from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: mail.messageId,
    headers: mail.headers,
    attachments: mail.attachments?.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content, cid: a.cid })),
  };
}

export function createMailTransport(options: MailTransportOptions): MailTransport {
  return options.smtpUrl ? smtpTransport(options, options.smtpUrl) : fileTransport(options);
}

function smtpTransport(options: MailTransportOptions, smtpUrl: string): MailTransport {
  // Timeouts well under the sender's lease, so a hung server turns into a retry, not a stuck row.
  const transporter = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 });
  return {
    kind: 'smtp',
    async send(mail) {
      const info = await transporter.sendMail(toNodemailer(options.from, mail));
      return { messageId: info.messageId, accepted: (info.accepted ?? []).map(String) };
    },
    close: () => transporter.close(),
  };
}

function fileTransport(options: MailTransportOptions): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  const dir = outboxDir(options.dataDir);
  return {
    kind: 'file',
    async send(mail) {
      const info = await transporter.sendMail(toNodemailer(options.from, mail));
      await fs.mkdir(dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
      const slug = mail.subject.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);
      const file = path.join(dir, `${stamp}-${slug || 'message'}-${randomUUID().slice(0, 8)}.eml`);
      // Written under a temporary name and renamed: a reader never sees half a message.
      await fs.writeFile(`${file}.tmp`, info.message as Buffer);
      await fs.rename(`${file}.tmp`, file);
      options.logger.info('email written to outbox', { file, to: mail.to, subject: mail.subject });
      return { messageId: info.messageId, accepted: mail.to };
    },
    close: () => undefined,
  };
}
