// What the operator's setup script does to the database (decisions §11), in one transaction:
// update the instance settings it is given, create the first admin with a temporary password
// when that email has no account, and optionally issue a service-account token. It never
// deletes or resets anything, so running it again only changes settings.
import type { Database } from '../postgres/database.ts';
import { generateTemporaryPassword } from './passwords.ts';
import { createServiceAccount } from './service-accounts.ts';
import { createUser, findUserByEmail } from './users.ts';

export interface ProvisionOptions {
  company?: string;
  plan?: 'professional' | 'enterprise';
  agentLimit?: number;
  /** ISO 4217, upper case. */
  currency?: string;
  /** Decimal text, kept as text so numeric(20,10) stores exactly what the operator typed. */
  usdRate?: string;
  signupEnabled?: boolean;
  adminEmail?: string;
  adminName?: string;
  /** Name of a service account to create; its token is returned once. */
  serviceTokenName?: string;
}

export interface ProvisionResult {
  company: string;
  plan: string;
  agent_limit: number;
  display_currency: string;
  usd_rate: number;
  signup_enabled: boolean;
  admin_email?: string;
  /** False when the email already had an account (its password is left alone). */
  admin_created?: boolean;
  /** True when an existing account was made admin (it was a member or a trial account). */
  admin_promoted?: boolean;
  temporary_password?: string;
  service_account_id?: string;
  service_token?: string;
}

/** Settings that a first setup (an instance with no admin yet) must be given. */
export const FIRST_SETUP_REQUIRED = ['company', 'plan', 'agentLimit', 'currency', 'adminEmail'] as const;

export async function hasAdmin(db: Database): Promise<boolean> {
  const { rows } = await db.query("SELECT 1 FROM users WHERE role = 'admin' LIMIT 1");
  return rows.length > 0;
}

export async function provisionInstance(db: Database, options: ProvisionOptions, hashCost: number): Promise<ProvisionResult> {
  return db.transaction(async (client) => {
    const { rows } = await client.query(
      `UPDATE instance_settings SET
         company_name = coalesce($1, company_name),
         plan = coalesce($2, plan),
         agent_limit = coalesce($3, agent_limit),
         display_currency = coalesce($4, display_currency),
         usd_rate = coalesce($5::numeric, usd_rate),
         signup_enabled = coalesce($6, signup_enabled),
         updated_at = now()
       WHERE id = 1
       RETURNING company_name, plan, agent_limit, display_currency, usd_rate::float8 AS usd_rate, signup_enabled`,
      [options.company ?? null, options.plan ?? null, options.agentLimit ?? null, options.currency ?? null, options.usdRate ?? null, options.signupEnabled ?? null],
    );
    const settings = rows[0];
    if (!settings) throw new Error('instance_settings row is missing: migrations did not run');
    const result: ProvisionResult = {
      company: settings.company_name,
      plan: settings.plan,
      agent_limit: settings.agent_limit,
      display_currency: settings.display_currency,
      usd_rate: settings.usd_rate,
      signup_enabled: settings.signup_enabled,
    };
    if (options.adminEmail) {
      result.admin_email = options.adminEmail;
      const existing = await findUserByEmail(client, options.adminEmail);
      if (existing) {
        result.admin_created = false;
        result.admin_promoted = existing.role !== 'admin' || existing.trial_expires_at !== null;
        if (result.admin_promoted) {
          // The operator named this account as the admin: it becomes one, and never expires.
          await client.query("UPDATE users SET role = 'admin', trial_expires_at = NULL, updated_at = now() WHERE id = $1", [existing.id]);
        }
      } else {
        const password = generateTemporaryPassword();
        await createUser(client, { email: options.adminEmail, name: options.adminName ?? null, password, role: 'admin', passwordChangeRequired: true }, hashCost);
        result.admin_created = true;
        result.temporary_password = password;
      }
    }
    if (options.serviceTokenName) {
      const account = await createServiceAccount(client, options.serviceTokenName);
      result.service_account_id = account.id;
      result.service_token = account.token;
    }
    return result;
  });
}
