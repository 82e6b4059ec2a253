// The whole environment of the service, parsed once at start. Defaults live here and nowhere
// else; a bad value stops the process with a message naming the variable.
import path from 'node:path';

export type Role = 'ingest' | 'api' | 'workers';
export const ALL_ROLES: readonly Role[] = ['ingest', 'api', 'workers'];

export interface Config {
  roles: Set<Role>;
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  clickhouseUrl?: string;
  clickhouseDatabase: string;
  kafkaBrokers?: string[];
  kafkaTopicPrefix: string;
  kafkaPartitions: number;
  kafkaReplicationFactor: number;
  smtpUrl?: string;
  smtpFrom: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  accessLog: 'all' | 'errors' | 'off';
  maxBodyBytes: number;
  maxOtlpBodyBytes: number;
  ingestBatchMaxEvents: number;
  ingestBatchIntervalMs: number;
  ingestQueueMaxEvents: number;
  spanRetentionDays: number;
  shutdownTimeoutMs: number;
  /** Hash cost of passwords (scrypt N = 2^passwordHashCost); lowered only in tests. */
  passwordHashCost: number;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    const parsed = new URL(raw);
    if (!protocols.includes(parsed.protocol)) throw new Error();
    return raw;
  } catch {
    throw new ConfigError(name, `must be a URL starting with ${protocols.join(' or ')}`);
  }
}

export function parseRoles(raw: string | undefined, source: string): Set<Role> {
  if (raw === undefined || raw === '' || raw === 'all') return new Set(ALL_ROLES);
  const roles = new Set<Role>();
  for (const part of raw.split(',').map((p) => p.trim())) {
    if (!(ALL_ROLES as readonly string[]).includes(part)) {
      throw new ConfigError(source, `must be a comma-separated list of ${ALL_ROLES.join(', ')} (or all), got "${raw}"`);
    }
    roles.add(part as Role);
  }
  return roles;
}

/** `--role a,b` on the command line wins over the ROLES variable. */
function rolesFrom(argv: string[], env: Env): Set<Role> {
  const index = argv.findIndex((a) => a === '--role' || a.startsWith('--role='));
  if (index === -1) return parseRoles(env.ROLES, 'ROLES');
  const arg = argv[index]!;
  const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[index + 1];
  return parseRoles(value, '--role');
}

export function parseConfig(env: Env = process.env, argv: string[] = process.argv.slice(2)): Config {
  const brokers = env.KAFKA_BROKERS?.split(',').map((b) => b.trim()).filter(Boolean);
  return {
    roles: rolesFrom(argv, env),
    host: env.HOST || '0.0.0.0',
    port: integer(env, 'PORT', 8080, 0, 65535),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    clickhouseUrl: url(env, 'CLICKHOUSE_URL', ['http:', 'https:']),
    clickhouseDatabase: env.CLICKHOUSE_DATABASE || 'agent_ops',
    kafkaBrokers: brokers && brokers.length > 0 ? brokers : undefined,
    kafkaTopicPrefix: env.KAFKA_TOPIC_PREFIX || 'aor',
    kafkaPartitions: integer(env, 'KAFKA_PARTITIONS', 6, 1, 1024),
    kafkaReplicationFactor: integer(env, 'KAFKA_REPLICATION_FACTOR', 1, 1, 7),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: env.SMTP_FROM || 'Agent Operations Registry <no-reply@localhost>',
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error', 'silent'] as const),
    accessLog: oneOf(env, 'ACCESS_LOG', 'all', ['all', 'errors', 'off'] as const),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    maxOtlpBodyBytes: integer(env, 'MAX_OTLP_BODY_BYTES', 8 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    ingestBatchMaxEvents: integer(env, 'INGEST_BATCH_MAX_EVENTS', 10_000, 1, 1_000_000),
    ingestBatchIntervalMs: integer(env, 'INGEST_BATCH_INTERVAL_MS', 20, 1, 60_000),
    ingestQueueMaxEvents: integer(env, 'INGEST_QUEUE_MAX_EVENTS', 200_000, 1, 10_000_000),
    spanRetentionDays: integer(env, 'SPAN_RETENTION_DAYS', 30, 1, 3650),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    passwordHashCost: integer(env, 'PASSWORD_HASH_COST', 15, 10, 20),
  };
}
