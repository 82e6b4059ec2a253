// INSERT ... SELECT statements that synthesise quality signals, their check results and their
// cost events inside ClickHouse (numbers() as the row source), so 100M rows never cross into
// Node. Every value is a function of the signal number s, so the three tables agree with each
// other (a signal's passed_count equals its passed check rows) and a rerun writes the same data.
//
// The model of the company: `agents` agents, skewed (the busiest 1 % send about 6 % of the
// signals); each signal runs 4 checks, two fixed per agent and two drawn from 3 variants, so an
// agent has about 8 distinct checks out of 50; pass rates 88-97 % by check, 15 points lower
// for every 25th agent; one cost event per signal (tokens and a model, as ingest makes them).
import { agentUuidPg, agentUuidSql, CHECKS, CHECKS_PER_SIGNAL, DEPARTMENTS, MODELS, SEVERITIES, sqlArray } from './bench-data.ts';

export interface BulkShape {
  signals: number;
  agents: number;
  /** Unix ms of the first signal; signals are spread evenly up to startMs + spanMs. */
  startMs: number;
  spanMs: number;
}

const uuidFromHash = (s: string, seedA: number, seedB: number) => {
  const h = `concat(leftPad(lower(hex(cityHash64(${s}, ${seedA}))), 16, '0'), leftPad(lower(hex(cityHash64(${s}, ${seedB}))), 16, '0'))`;
  return `toUUID(concat(substring(${h}, 1, 8), '-', substring(${h}, 9, 4), '-4', substring(${h}, 14, 3), '-8', substring(${h}, 18, 3), '-', substring(${h}, 21, 12)))`;
};

/** Aliases every statement needs, for a source that defines `s` (the signal number). */
function signalAliases(shape: BulkShape): string {
  return [
    `least(toUInt32(floor(${shape.agents} * pow(cityHash64(s, 1) / 18446744073709551616, 1.6))), ${shape.agents - 1}) AS a`,
    `${agentUuidSql('a')} AS agent_uuid`,
    `fromUnixTimestamp64Milli(toInt64(${shape.startMs}) + toInt64(intDiv(toUInt64(s) * ${shape.spanMs}, ${shape.signals})), 'UTC') AS ts`,
    `concat('job-', toString(s)) AS job`,
    `${uuidFromHash('s', 11, 12)} AS sig_id`,
    `a % ${MODELS.length} + 1 AS mi`,
    `toUInt64(400 + cityHash64(s, 5) % 3000) AS tin`,
    `toUInt64(80 + cityHash64(s, 6) % 900) AS tout`,
  ].join(',\n  ');
}

/** Check number (0..49) of check k of signal s of agent a. */
const checkOf = (k: string) => `((a * 7 + ${k} * 13 + if(${k} >= 2, (s % 3) * 3, 0)) % ${CHECKS})`;
const passedOf = (k: string, c: string) => `((cityHash64(s, ${k}, 3) % 1000) < (970 - (${c} % 10) * 10 - if(a % 25 = 0, 150, 0)))`;

const numbersFor = (from: number, count: number) => `numbers(${from}, ${count})`;

export function insertChecksSql(shape: BulkShape, fromSignal: number, count: number): string {
  return `INSERT INTO raw_check_results (signal_id, agent_id, job_id, check_id, severity, passed, expected, actual, delta, received_at)
SELECT sig_id, agent_uuid, job, concat('check_', leftPad(toString(c), 2, '0')), ${sqlArray(SEVERITIES)}[c % 4 + 1], ok,
  if(k = 1, concat(toString(1000 + s % 500), '.00'), NULL),
  if(k = 1, if(ok, concat(toString(1000 + s % 500), '.00'), concat(toString(1001 + s % 500), '.50')), NULL),
  if(k = 1, if(ok, '0.00', '1.50'), NULL),
  ts
FROM (SELECT intDiv(number, ${CHECKS_PER_SIGNAL}) AS s, number % ${CHECKS_PER_SIGNAL} AS k,
  ${signalAliases(shape)},
  ${checkOf('k')} AS c, ${passedOf('k', 'c')} AS ok
  FROM ${numbersFor(fromSignal * CHECKS_PER_SIGNAL, count * CHECKS_PER_SIGNAL)})
SETTINGS insert_deduplicate = 0`;
}

export function insertSignalsSql(shape: BulkShape, fromSignal: number, count: number): string {
  const passed = Array.from({ length: CHECKS_PER_SIGNAL }, (_, k) => `toUInt32(${passedOf(String(k), checkOf(String(k)))})`).join(' + ');
  return `INSERT INTO raw_signals (signal_id, agent_id, agent_external_id, job_id, overall_passed, check_count, passed_count, latency_ms, model, token_input, token_output, received_at)
SELECT sig_id, agent_uuid, concat('bench-agent-', toString(a)), job, passed_count = ${CHECKS_PER_SIGNAL}, ${CHECKS_PER_SIGNAL}, passed_count,
  toUInt32(200 + cityHash64(s, 4) % 3000), ${sqlArray(MODELS.map((m) => m[0]))}[mi], tin, tout, ts
FROM (SELECT number AS s, ${signalAliases(shape)}, ${passed} AS passed_count FROM ${numbersFor(fromSignal, count)})
SETTINGS insert_deduplicate = 0`;
}

export function insertCostsSql(shape: BulkShape, fromSignal: number, count: number): string {
  const pin = sqlArray(MODELS.map((m) => m[2]));
  const pout = sqlArray(MODELS.map((m) => m[3]));
  return `INSERT INTO raw_cost_events (event_id, agent_id, agent_external_id, department, job_id, model, provider, input_tokens, output_tokens,
  cached_input_tokens, cost_usd, usd_rate, cost_display, display_currency, priced, input_usd_per_mtok, output_usd_per_mtok,
  cached_input_usd_per_mtok, source, occurred_at, received_at)
SELECT ${uuidFromHash('s', 13, 14)}, agent_uuid, concat('bench-agent-', toString(a)), ${sqlArray(DEPARTMENTS)}[a % ${DEPARTMENTS.length} + 1], job,
  ${sqlArray(MODELS.map((m) => m[0]))}[mi], ${sqlArray(MODELS.map((m) => m[1]))}[mi], tin, tout, 0,
  cost, toDecimal64(1, 9), cost, 'USD', true, toDecimal64(${pin}[mi], 9), toDecimal64(${pout}[mi], 9), toDecimal64(${pin}[mi], 9),
  'signal', ts, ts
FROM (SELECT number AS s, ${signalAliases(shape)},
  toDecimal64((tin * ${pin}[mi] + tout * ${pout}[mi]) / 1000000, 9) AS cost
  FROM ${numbersFor(fromSignal, count)})
SETTINGS insert_deduplicate = 0`;
}

/** PostgreSQL: the registry rows of agents 0..agents-1 (ids as agentUuid computes them). */
export function insertAgentsPgSql(agents: number): string {
  return `INSERT INTO agents (id, external_id, name, framework, status, risk_score, risk_level, owner_email, department,
    primary_model, model_provider, source, created_at, updated_at)
  SELECT ${agentUuidPg('n')}, 'bench-agent-' || n,
    (ARRAY['Invoice', 'Claims', 'Triage', 'Onboarding', 'Contract', 'Forecast', 'Ticket', 'Lead'])[n % 8 + 1] || ' agent ' || n,
    (ARRAY['LANGCHAIN', 'CREWAI', 'AUTOGEN', 'LLAMAINDEX', 'CUSTOM'])[n % 5 + 1],
    CASE WHEN n % 25 = 3 THEN 'DISCOVERED' WHEN n % 8 = 1 THEN 'PENDING_REVIEW' ELSE 'APPROVED' END,
    (n * 37) % 101,
    CASE WHEN (n * 37) % 101 >= 75 THEN 'CRITICAL' WHEN (n * 37) % 101 >= 50 THEN 'HIGH' WHEN (n * 37) % 101 >= 25 THEN 'MEDIUM' ELSE 'LOW' END,
    CASE WHEN n % 10 = 0 THEN NULL ELSE 'owner' || (n % 300) || '@example.com' END,
    (ARRAY${sqlArray(DEPARTMENTS)})[n % ${DEPARTMENTS.length} + 1],
    (ARRAY${sqlArray(MODELS.map((m) => m[0]))})[n % ${MODELS.length} + 1],
    (ARRAY${sqlArray(MODELS.map((m) => m[1]))})[n % ${MODELS.length} + 1],
    'api', now() - make_interval(secs => n * 60), now()
  FROM generate_series(0, ${agents - 1}) AS n
  ON CONFLICT (external_id) DO NOTHING`;
}
