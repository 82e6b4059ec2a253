// Applying a settings PATCH: rules that span fields (start before end, a currency with its rate)
// are checked against the stored row under a row lock, so two admins patching at once cannot
// leave business hours that end before they start.
import { validationFailed, type FieldError } from '../../lib/errors.ts';
import { isValidTimeZone } from '../../lib/email/business-hours.ts';
import { readInstanceSettings } from '../../lib/instance-settings.ts';
import type { Database } from '../../lib/postgres/database.ts';
import { parseDisplayCurrency } from '../../lib/pricing/currency.ts';
import type { Settings, SettingsPatch } from '../../schemas/settings.ts';
import { READ_ONLY_SETTINGS } from '../../schemas/settings.ts';

/** 422 naming each read-only field sent, before the schema's generic "unexpected property". */
export function refuseReadOnly(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const sent = READ_ONLY_SETTINGS.filter((k) => k in body);
  if (sent.length > 0) {
    throw validationFailed(sent.map((k) => ({ path: `/${k}`, message: 'is set by the operator script (npm run setup) and is read-only here' })));
  }
}

function duplicates(values: readonly string[], path: string, normalise: (v: string) => string): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  values.forEach((v, i) => {
    const n = normalise(v);
    if (seen.has(n)) errors.push({ path: `${path}/${i}`, message: 'is listed twice' });
    seen.add(n);
  });
  return errors;
}

/** The columns to write, after every rule that needs more than one field. */
function checkedChanges(patch: SettingsPatch, current: Settings): Record<string, unknown> {
  const errors: FieldError[] = [];
  const next = { ...current, ...patch };
  if (patch.display_currency !== undefined || patch.usd_rate !== undefined) {
    // Changing the currency without a rate would reprice every figure with the old currency's rate.
    const rate = patch.usd_rate ?? (patch.display_currency === 'USD' ? 1 : patch.display_currency === undefined ? current.usd_rate : undefined);
    if (rate === undefined) errors.push({ path: '/usd_rate', message: 'is required when display_currency changes' });
    else {
      try {
        parseDisplayCurrency(next.display_currency, rate);
        next.usd_rate = rate;
      } catch (error) {
        errors.push(...((error as { errors?: FieldError[] }).errors ?? []));
      }
    }
  }
  if (next.business_hours_start >= next.business_hours_end) {
    errors.push({ path: patch.business_hours_end !== undefined ? '/business_hours_end' : '/business_hours_start', message: 'business hours must end after they start' });
  }
  if (patch.time_zone !== undefined && !isValidTimeZone(patch.time_zone)) errors.push({ path: '/time_zone', message: 'is not an IANA time zone (for example Europe/Paris)' });
  if (patch.alert_contacts) errors.push(...duplicates(patch.alert_contacts, '/alert_contacts', (e) => e.toLowerCase()));
  if (patch.business_days) errors.push(...duplicates(patch.business_days.map(String), '/business_days', (d) => d));
  if (patch.code_scan_folders) {
    errors.push(...duplicates(patch.code_scan_folders, '/code_scan_folders', (f) => f.replace(/\/+$/, '') || '/'));
    patch.code_scan_folders.forEach((f, i) => {
      if (f.split('/').includes('..')) errors.push({ path: `/code_scan_folders/${i}`, message: 'must not contain .. segments' });
    });
  }
  if (errors.length > 0) throw validationFailed(errors);

  const changes: Record<string, unknown> = { ...patch };
  if ('display_currency' in patch || 'usd_rate' in patch) changes.usd_rate = next.usd_rate;
  if (patch.business_days) changes.business_days = [...patch.business_days].sort();
  return changes;
}

const COLUMNS = new Set([
  'display_currency', 'usd_rate', 'alert_contacts', 'signup_enabled', 'code_scan_folders', 'business_hours_start',
  'business_hours_end', 'business_days', 'time_zone', 'report_weekday', 'report_hour',
]);

export async function readSettings(db: Database): Promise<Settings> {
  return (await readInstanceSettings(db)) as Settings;
}

export async function updateSettings(db: Database, patch: SettingsPatch): Promise<{ settings: Settings; changed: string[] }> {
  return db.transaction(async (client) => {
    await client.query('SELECT 1 FROM instance_settings WHERE id = 1 FOR UPDATE');
    const current = (await readInstanceSettings(client)) as Settings;
    const changes = checkedChanges(patch, current);
    const names = Object.keys(changes).filter((k) => COLUMNS.has(k));
    const sets = names.map((k, i) => `${k} = $${i + 1}`);
    await client.query(`UPDATE instance_settings SET ${sets.join(', ')}, updated_at = now() WHERE id = 1`, names.map((k) => changes[k]));
    return { settings: (await readInstanceSettings(client)) as Settings, changed: names };
  });
}
