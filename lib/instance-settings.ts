// The instance's settings row (company, plan, agent limit, currency...). Read by every tier.
import type { Queryable } from './postgres/database.ts';

export interface InstanceSettings {
  company_name: string;
  plan: 'professional' | 'enterprise';
  agent_limit: number;
  display_currency: string;
  usd_rate: number;
  signup_enabled: boolean;
  alert_contacts: string[];
  code_scan_folders: string[];
  business_hours_start: number;
  business_hours_end: number;
  business_days: number[];
  time_zone: string;
  report_weekday: number;
  report_hour: number;
  updated_at: string;
}

export async function readInstanceSettings(db: Queryable): Promise<InstanceSettings> {
  const { rows } = await db.query(
    `SELECT company_name, plan, agent_limit, display_currency, usd_rate::float8 AS usd_rate, signup_enabled,
            alert_contacts, code_scan_folders, business_hours_start, business_hours_end, business_days,
            time_zone, report_weekday, report_hour, updated_at
       FROM instance_settings WHERE id = 1`,
  );
  const row = rows[0];
  if (!row) throw new Error('instance_settings row is missing: migrations did not run');
  return { ...row, updated_at: new Date(row.updated_at).toISOString() } as InstanceSettings;
}

export async function readJwtSecret(db: Queryable): Promise<Uint8Array> {
  const { rows } = await db.query('SELECT jwt_secret FROM instance_settings WHERE id = 1');
  return new Uint8Array(rows[0].jwt_secret as Buffer);
}
