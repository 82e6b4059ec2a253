// One alert as an email: a short subject, the summary, a table of facts, and when it was
// detected and promised. Plain text for every client, simple HTML (tables, inline styles only)
// for the ones that show it.
import { escapeHtml, oneLine } from '../../lib/email/html.ts';
import type { StoredMessage } from '../../lib/email/outbox.ts';
import type { AlertCandidate } from './types.ts';

export interface AlertEnvelope {
  companyName: string;
  detectedAt: Date;
  timeZone: string;
}

function localTime(at: Date, timeZone: string): string {
  return `${at.toLocaleString('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' })} (${timeZone})`;
}

export function renderAlert(alert: AlertCandidate, env: AlertEnvelope): StoredMessage {
  const subject = oneLine(`[${env.companyName}] Alert: ${alert.title}`);
  const footer =
    `Detected ${localTime(env.detectedAt, env.timeZone)}. Alert ${alert.key}.\n` +
    `You receive this as an alert contact of ${env.companyName}'s Agent Operations Registry; admins change the contacts in the settings.`;
  const width = Math.max(...alert.facts.map(([label]) => label.length));
  const text = [
    alert.summary,
    '',
    ...alert.facts.map(([label, value]) => `${label.padEnd(width)}  ${value}`),
    '',
    footer,
    '',
  ].join('\n');
  const rows = alert.facts
    .map(([label, value]) => `<tr><th align="left" style="padding:4px 12px 4px 0;color:#555;font-weight:normal">${escapeHtml(label)}</th><td style="padding:4px 0">${escapeHtml(value)}</td></tr>`)
    .join('');
  const html =
    `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222">` +
    `<h2 style="font-size:18px;margin:0 0 12px">${escapeHtml(alert.title)}</h2>` +
    `<p>${escapeHtml(alert.summary)}</p><table cellspacing="0" cellpadding="0">${rows}</table>` +
    `<p style="color:#777;font-size:12px;margin-top:24px">${escapeHtml(footer).replace(/\n/g, '<br>')}</p></body></html>`;
  return { subject, text, html };
}
