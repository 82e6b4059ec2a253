// `npm run setup -- --company NAME --plan professional|enterprise --agent-limit N --currency CODE
//  --usd-rate R --admin-email EMAIL [--admin-name NAME] [--signup on|off] [--service-token NAME] [--json]`
//
// The operator's non-interactive setup (decisions §11). Each flag may also come from the
// environment (SETUP_COMPANY, SETUP_PLAN, SETUP_AGENT_LIMIT, SETUP_CURRENCY, SETUP_USD_RATE,
// SETUP_ADMIN_EMAIL, SETUP_ADMIN_NAME, SETUP_SIGNUP, SETUP_SERVICE_TOKEN); a flag wins.
// A first setup (no admin yet) needs company, plan, agent limit, currency and admin email; a
// rerun changes only the settings it is given and never wipes data.
//
// Database: DATABASE_URL when set; otherwise the embedded PostgreSQL in DATA_DIR (./data). If a
// service already serves that folder, the script connects to its server (starting a second one
// would stop the service's); else it starts the server, migrates, works, and stops it.
// Exit codes: 0 done, 2 bad flags, 1 anything else. Secrets appear only in this one output.
import { ConfigError, parseConfig, type Config } from '../lib/config.ts';
import type { Logger } from '../lib/log.ts';
import { createDatabase, type Database } from '../lib/postgres/database.ts';
import { findRunningEmbeddedPostgres, startEmbeddedPostgres } from '../lib/postgres/embedded.ts';
import { migrate } from '../lib/postgres/migrate.ts';
import { readInstanceSettings } from '../lib/instance-settings.ts';
import { isCurrencyCode } from '../lib/pricing/currency.ts';
import { parsePriceFlag, upsertPriceOverride } from '../lib/pricing/price-overrides.ts';
import type { PriceEntry } from '../lib/pricing/pricing.ts';
import { isValidEmail } from '../lib/auth/users.ts';
import { FIRST_SETUP_REQUIRED, hasAdmin, provisionInstance, type ProvisionOptions, type ProvisionResult } from '../lib/auth/provision.ts';

class UsageError extends Error {}

const FLAGS: Record<string, { env: string; key: keyof ProvisionOptions | 'json' }> = {
  company: { env: 'SETUP_COMPANY', key: 'company' },
  plan: { env: 'SETUP_PLAN', key: 'plan' },
  'agent-limit': { env: 'SETUP_AGENT_LIMIT', key: 'agentLimit' },
  currency: { env: 'SETUP_CURRENCY', key: 'currency' },
  'usd-rate': { env: 'SETUP_USD_RATE', key: 'usdRate' },
  'admin-email': { env: 'SETUP_ADMIN_EMAIL', key: 'adminEmail' },
  'admin-name': { env: 'SETUP_ADMIN_NAME', key: 'adminName' },
  signup: { env: 'SETUP_SIGNUP', key: 'signupEnabled' },
  'service-token': { env: 'SETUP_SERVICE_TOKEN', key: 'serviceTokenName' },
};

const USAGE = `Usage: npm run setup -- --company NAME --plan professional|enterprise --agent-limit N
         --currency CODE --usd-rate RATE --admin-email EMAIL [--admin-name NAME]
         [--signup on|off] [--service-token NAME] [--price MODEL=INPUT,OUTPUT[,CACHED]]... [--json]`;

/** Reads flags (`--name value` or `--name=value`) over SETUP_* variables into raw strings. */
function readRaw(argv: string[], env: Record<string, string | undefined>): { raw: Map<string, string>; json: boolean; prices: string[] } {
  const raw = new Map<string, string>();
  // --price may repeat: one model each.
  const prices: string[] = [];
  for (const [flag, spec] of Object.entries(FLAGS)) {
    const value = env[spec.env];
    if (value !== undefined && value !== '') raw.set(flag, value);
  }
  let json = env.SETUP_JSON === '1' || env.SETUP_JSON === 'true';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') {
      json = true;
      continue;
    }
    if (arg === '--help' || arg === '-h') throw new UsageError(USAGE);
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    if (!match || (!FLAGS[match[1]!] && match[1] !== 'price')) throw new UsageError(`Unknown argument "${arg}".\n${USAGE}`);
    const value = match[2] ?? argv[++i];
    if (value === undefined || (match[2] === undefined && value.startsWith('--'))) throw new UsageError(`--${match[1]} needs a value.`);
    if (match[1] === 'price') prices.push(value);
    else raw.set(match[1]!, value);
  }
  return { raw, json, prices };
}

function parseSetupArgs(argv: string[], env: Record<string, string | undefined>): { options: ProvisionOptions; json: boolean; prices: PriceEntry[] } {
  const { raw, json, prices: priceFlags } = readRaw(argv, env);
  const problems: string[] = [];
  const options: ProvisionOptions = {};
  const get = (flag: string) => raw.get(flag)?.trim();

  const company = get('company');
  if (company !== undefined) {
    if (company === '' || company.length > 200) problems.push('--company must be 1 to 200 characters.');
    else options.company = company;
  }
  const plan = get('plan')?.toLowerCase();
  if (plan !== undefined) {
    if (plan === 'professional' || plan === 'enterprise') options.plan = plan;
    else problems.push('--plan must be professional or enterprise.');
  }
  const limit = get('agent-limit');
  if (limit !== undefined) {
    if (/^\d{1,9}$/.test(limit)) options.agentLimit = Number(limit);
    else problems.push('--agent-limit must be a whole number from 0 to 999999999.');
  }
  const currency = get('currency')?.toUpperCase();
  if (currency !== undefined) {
    if (isCurrencyCode(currency)) options.currency = currency;
    else problems.push(`--currency must be an ISO 4217 code in circulation (for example USD, EUR, GBP), got "${get('currency')}".`);
  }
  const rate = get('usd-rate');
  if (rate !== undefined) {
    const value = Number(rate);
    if (!/^\d+(\.\d+)?$/.test(rate) || !(value > 0) || value >= 1e10) problems.push('--usd-rate must be a number greater than 0 (units of the currency per 1 USD), like 0.92.');
    else options.usdRate = rate;
  }
  if (options.currency === 'USD' && options.usdRate === undefined) options.usdRate = '1';
  if (options.currency === 'USD' && options.usdRate !== undefined && Number(options.usdRate) !== 1) problems.push('--usd-rate must be 1 when --currency is USD.');
  if (options.currency && options.currency !== 'USD' && rate === undefined) problems.push(`--usd-rate is required with --currency ${options.currency}.`);
  const email = get('admin-email');
  if (email !== undefined) {
    if (isValidEmail(email)) options.adminEmail = email;
    else problems.push(`--admin-email must be an email address, got "${email}".`);
  }
  const name = get('admin-name');
  if (name) options.adminName = name.slice(0, 200);
  const signup = get('signup')?.toLowerCase();
  if (signup !== undefined) {
    if (['on', 'true', 'yes', '1'].includes(signup)) options.signupEnabled = true;
    else if (['off', 'false', 'no', '0'].includes(signup)) options.signupEnabled = false;
    else problems.push('--signup must be on or off.');
  }
  const token = get('service-token');
  if (token !== undefined) {
    if (token === '' || token.length > 100) problems.push('--service-token must be a name of 1 to 100 characters.');
    else options.serviceTokenName = token;
  }
  const prices: PriceEntry[] = [];
  for (const flag of priceFlags) {
    const entry = parsePriceFlag(flag);
    if (entry) prices.push(entry);
    else problems.push(`--price must look like MODEL=INPUT,OUTPUT[,CACHED] in USD per million tokens, got "${flag}".`);
  }
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  return { options, json, prices };
}

/** Progress and warnings go to stderr, so stdout carries only the result (one JSON object with --json). */
function stderrLogger(): Logger {
  const write = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
    process.stderr.write(`${level}: ${msg}${fields ? ' ' + JSON.stringify(fields, (_k, v) => (v instanceof Error ? v.message : v)) : ''}\n`);
  };
  const logger: Logger = { debug: () => undefined, info: () => undefined, warn: write('warning'), error: write('error'), child: () => logger };
  return logger;
}

async function openDatabase(config: Config, logger: Logger): Promise<{ db: Database; close(): Promise<void> }> {
  let url = config.databaseUrl;
  let stopServer: (() => Promise<void>) | undefined;
  if (!url) {
    url = await findRunningEmbeddedPostgres(config.dataDir);
    if (url) {
      process.stderr.write(`Using the PostgreSQL of the service running on ${config.dataDir}.\n`);
    } else {
      process.stderr.write(`Starting the embedded PostgreSQL in ${config.dataDir} ...\n`);
      const server = await startEmbeddedPostgres(config.dataDir, logger);
      url = server.url;
      stopServer = server.stop;
    }
  }
  const db = createDatabase(url, { max: 2 });
  return {
    db,
    async close() {
      await db.close().catch(() => undefined);
      await stopServer?.();
    },
  };
}

const LABELS: Array<[keyof ProvisionResult, string]> = [
  ['company', 'Company'],
  ['plan', 'Plan'],
  ['agent_limit', 'Agent limit'],
  ['display_currency', 'Display currency'],
  ['usd_rate', 'Units per USD'],
  ['signup_enabled', 'Self-signup'],
];

function printHuman(result: ProvisionResult & { prices?: PriceEntry[] }): void {
  const out: string[] = ['Instance settings:'];
  for (const [key, label] of LABELS) {
    const value = key === 'signup_enabled' ? (result.signup_enabled ? 'on' : 'off') : String(result[key]);
    out.push(`  ${(label + ':').padEnd(18)}${value}`);
  }
  if (result.admin_email && result.admin_created) {
    out.push('', `Admin ${result.admin_email} created.`, `  Temporary password (shown only now; it must be changed at first sign-in): ${result.temporary_password}`);
  } else if (result.admin_email) {
    out.push('', `Admin ${result.admin_email} already exists; its password was left unchanged${result.admin_promoted ? ' (the account was made an admin)' : ''}.`);
  }
  if (result.service_token) {
    out.push('', `Service-account token (shown only now; send it as "Authorization: Bearer <token>" to the OTLP endpoint):`, `  ${result.service_token}`);
  }
  for (const p of result.prices ?? []) {
    out.push(`Price of ${p.model} set: input ${p.input}, output ${p.output}${p.cached_input === null ? '' : `, cached input ${p.cached_input}`} USD per million tokens.`);
  }
  process.stdout.write(out.join('\n') + '\n');
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseSetupArgs>;
  let config: Config;
  try {
    parsed = parseSetupArgs(process.argv.slice(2), process.env);
    config = parseConfig(process.env, []);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const { db, close } = await openDatabase(config, stderrLogger());
  try {
    await migrate(db);
    if (!(await hasAdmin(db))) {
      const missing = FIRST_SETUP_REQUIRED.filter((key) => parsed.options[key] === undefined);
      if (missing.length > 0) {
        const flags = missing.map((key) => '--' + Object.entries(FLAGS).find(([, spec]) => spec.key === key)![0]);
        process.stderr.write(`This instance has no admin yet; the first setup needs ${flags.join(', ')}.\n${USAGE}\n`);
        return 2;
      }
    }
    if (parsed.options.usdRate !== undefined && parsed.options.currency === undefined) {
      const { display_currency } = await readInstanceSettings(db);
      if (display_currency === 'USD' && Number(parsed.options.usdRate) !== 1) {
        process.stderr.write('--usd-rate must be 1 while the display currency is USD; give --currency too to change both.\n');
        return 2;
      }
    }
    const result: ProvisionResult & { prices?: PriceEntry[] } = await provisionInstance(db, parsed.options, config.passwordHashCost);
    for (const price of parsed.prices) await upsertPriceOverride(db, price);
    if (parsed.prices.length > 0) result.prices = parsed.prices;
    if (parsed.json) process.stdout.write(JSON.stringify(result) + '\n');
    else printHuman(result);
    return 0;
  } finally {
    await close();
  }
}

// Exit once stdout has flushed: a pool or server handle must not keep the script alive.
const exit = (code: number) => process.stdout.write('', () => process.exit(code));
main().then(exit, (error) => {
  process.stderr.write(`Setup failed: ${error instanceof Error ? error.message : String(error)}\n`);
  exit(1);
});
