-- why: the analytics tables for a ClickHouse cluster of SEVERAL shards, each with replicas (Keeper).
-- Documentation, not a migration: the service never applies this file. Apply it once, before the
-- first start of the service against the cluster, on any node:
--   clickhouse-client --database agent_ops --multiquery < clickhouse/cluster/sharded.sql
-- (after CREATE DATABASE IF NOT EXISTS agent_ops ON CLUSTER agent_ops_cluster). Replace
-- agent_ops_cluster with the cluster name of remote_servers; {shard} and {replica} are the
-- standard macros of each node's config.
--
-- Layout: every table of clickhouse/NNN_*.sql becomes <name>_local (Replicated*, holding this
-- shard's rows) plus <name>, a Distributed table with the service's name over all shards. Raw
-- tables are sharded by agent, so one agent's rows and daily aggregates sit on one shard.
-- Materialized views keep the service's names but read <raw>_local and write <agg>_local on
-- each shard: an insert through the Distributed raw table reaches a shard's local table, whose
-- view aggregates it there; readers sum over the Distributed aggregate tables, as they already
-- GROUP BY and sum(). The names must stay exactly these: the service's migrations then find
-- every object present and create nothing (a second view on the Distributed raw table would
-- count every event twice).
--
-- Required on the users the service connects as (settings profile):
--   distributed_foreground_insert = 1   -- (insert_distributed_sync before 23.x) the insert
--                                         returns only when every shard wrote its part, so the
--                                         Kafka loader commits offsets after durable writes.
-- Known gap: at start the service sets span retention with ALTER TABLE raw_spans MODIFY TTL
-- (lib/analytics/spans-retention.ts). A Distributed table has no TTL and refuses that ALTER, so
-- the service does not start against this layout until that step targets raw_spans_local and
-- span_traces_local ON CLUSTER. The single-shard layout (replicated.sql) has no such gap.
-- Generated from clickhouse/NNN_*.sql; regenerate when a numbered file is added.

-- ===== 001_create_raw_signals.sql =====
-- why: one row per quality signal as received, the source of the signals list and per-agent history.
-- Partitioned by month so retention can drop whole months. ORDER BY starts with agent_id because
-- every read is per agent (signals list, newest first), then time. The bloom filter on signal_id
-- keeps the loader's "which of these ids exist already" check from scanning every granule.
-- non_replicated_deduplication_window makes a retried insert with the same
-- insert_deduplication_token a no-op (ClickHouse only deduplicates non-replicated tables when set).

CREATE TABLE IF NOT EXISTS raw_signals_local ON CLUSTER agent_ops_cluster
(
    signal_id         UUID,
    agent_id          UUID,
    agent_external_id String,
    job_id            String,
    overall_passed    Bool,
    check_count       UInt32,
    passed_count      UInt32,
    latency_ms        UInt32,
    model             Nullable(String),
    token_input       Nullable(UInt64),
    token_output      Nullable(UInt64),
    received_at       DateTime64(3, 'UTC'),
    inserted_at       DateTime64(3, 'UTC') DEFAULT now64(3, 'UTC'),
    INDEX idx_signal_id signal_id TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/raw_signals_local', '{replica}')
PARTITION BY toYYYYMM(received_at)
ORDER BY (agent_id, received_at, signal_id)
SETTINGS replicated_deduplication_window = 10000;

-- The name the service reads and writes: a Distributed table over the shards.
CREATE TABLE IF NOT EXISTS raw_signals ON CLUSTER agent_ops_cluster AS raw_signals_local
ENGINE = Distributed(agent_ops_cluster, currentDatabase(), raw_signals_local, cityHash64(agent_id));

-- ===== 002_create_raw_check_results.sql =====
-- why: one row per check of a quality signal, the input of the per-day accuracy view and of drill-downs.
-- Same month partitions as raw_signals. ORDER BY (agent_id, received_at, check_id): reads are per
-- agent over a time window, and a signal's checks sit together so the signals list can fetch them.
-- expected/actual/delta stay text: the spec carries them as decimal strings and we keep them exact.

CREATE TABLE IF NOT EXISTS raw_check_results_local ON CLUSTER agent_ops_cluster
(
    signal_id   UUID,
    agent_id    UUID,
    job_id      String,
    check_id    String,
    severity    LowCardinality(String),
    passed      Bool,
    expected    Nullable(String),
    actual      Nullable(String),
    delta       Nullable(String),
    received_at DateTime64(3, 'UTC')
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/raw_check_results_local', '{replica}')
PARTITION BY toYYYYMM(received_at)
ORDER BY (agent_id, received_at, check_id)
SETTINGS replicated_deduplication_window = 10000;

-- The name the service reads and writes: a Distributed table over the shards.
CREATE TABLE IF NOT EXISTS raw_check_results ON CLUSTER agent_ops_cluster AS raw_check_results_local
ENGINE = Distributed(agent_ops_cluster, currentDatabase(), raw_check_results_local, cityHash64(agent_id));

-- ===== 003_create_check_results_per_day.sql =====
-- why: accuracy, heatmap and risk read daily pass counts per (agent, check) without scanning raw checks.
-- SummingMergeTree adds rows with the same key when parts merge; readers still GROUP BY and sum(),
-- so figures are right before any merge happens. ORDER BY (agent_id, day, ...) serves the
-- per-agent accuracy query (agent, then a day range); the heatmap scans a few days of a small table.
-- The dedup window matters here too: with deduplicate_blocks_in_dependent_materialized_views=1 a
-- retried insert into raw_check_results is dropped from this table as well.
-- Days are UTC: received_at is DateTime64(3, 'UTC') and toDate is given 'UTC' explicitly.

CREATE TABLE IF NOT EXISTS check_results_per_day_local ON CLUSTER agent_ops_cluster
(
    agent_id    UUID,
    day         Date,
    check_id    String,
    severity    LowCardinality(String),
    total_runs  UInt64,
    passed_runs UInt64
)
ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/{database}/check_results_per_day_local', '{replica}', (total_runs, passed_runs))
PARTITION BY toYYYYMM(day)
ORDER BY (agent_id, day, check_id, severity)
SETTINGS replicated_deduplication_window = 10000;

-- Read through a Distributed table; written only by the local materialized view on each shard.
CREATE TABLE IF NOT EXISTS check_results_per_day ON CLUSTER agent_ops_cluster AS check_results_per_day_local
ENGINE = Distributed(agent_ops_cluster, currentDatabase(), check_results_per_day_local);

-- Local to local: each shard aggregates the rows it stores; readers sum over the Distributed table.
CREATE MATERIALIZED VIEW IF NOT EXISTS check_results_per_day_mv ON CLUSTER agent_ops_cluster TO check_results_per_day_local AS
SELECT
    agent_id,
    toDate(received_at, 'UTC') AS day,
    check_id,
    severity,
    count() AS total_runs,
    countIf(passed) AS passed_runs
FROM raw_check_results_local
GROUP BY agent_id, day, check_id, severity;

-- ===== 004_create_raw_cost_events.sql =====
-- why: one row per priced LLM call (cost events and signals with tokens), the ledger behind every cost figure.
-- agent_id is NULL for an agent not in the registry (unattributed cost); allow_nullable_key lets
-- it lead the sort key anyway, because reads are per agent over a time window. Month partitions
-- by occurred_at, the time cost reports bucket by. department is copied in at ingest so department
-- spend needs no join with PostgreSQL. Money is Decimal so sums are exact; the price snapshot
-- records what each event was priced at, so later price changes never rewrite history.

CREATE TABLE IF NOT EXISTS raw_cost_events_local ON CLUSTER agent_ops_cluster
(
    event_id                  UUID,
    agent_id                  Nullable(UUID),
    agent_external_id         String,
    department                LowCardinality(String),
    job_id                    String,
    model                     LowCardinality(String),
    provider                  LowCardinality(String),
    input_tokens              UInt64,
    output_tokens             UInt64,
    cached_input_tokens       UInt64,
    cost_usd                  Decimal(18, 9),
    usd_rate                  Decimal(18, 9),
    cost_display              Decimal(18, 9),
    display_currency          LowCardinality(String),
    priced                    Bool,
    input_usd_per_mtok        Decimal(18, 9),
    output_usd_per_mtok       Decimal(18, 9),
    cached_input_usd_per_mtok Decimal(18, 9),
    source                    LowCardinality(String),
    occurred_at               DateTime64(3, 'UTC'),
    received_at               DateTime64(3, 'UTC'),
    INDEX idx_event_id event_id TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/raw_cost_events_local', '{replica}')
PARTITION BY toYYYYMM(occurred_at)
ORDER BY (agent_id, occurred_at, event_id)
SETTINGS allow_nullable_key = 1, replicated_deduplication_window = 10000;

-- The name the service reads and writes: a Distributed table over the shards.
CREATE TABLE IF NOT EXISTS raw_cost_events ON CLUSTER agent_ops_cluster AS raw_cost_events_local
ENGINE = Distributed(agent_ops_cluster, currentDatabase(), raw_cost_events_local, cityHash64(agent_external_id));

-- ===== 005_create_spend_per_day.sql =====
-- why: cost summary, agent cost detail, department spend and observed models read daily sums, not the ledger.
-- Unattributed events get the nil UUID here (a sort key column cannot be NULL without
-- allow_nullable_key, and one bucket for "no registry agent" is all reads need). ORDER BY starts
-- with agent_id for the per-agent detail; department and model are key columns so they survive
-- summing. Readers GROUP BY and sum(), so unmerged parts never change a figure. The dedup window
-- drops a retried block here too (deduplicate_blocks_in_dependent_materialized_views=1).

CREATE TABLE IF NOT EXISTS spend_per_day_local ON CLUSTER agent_ops_cluster
(
    agent_id            UUID,
    day                 Date,
    department          LowCardinality(String),
    model               LowCardinality(String),
    cost_usd            Decimal(38, 9),
    cost_display        Decimal(38, 9),
    input_tokens        UInt64,
    output_tokens       UInt64,
    cached_input_tokens UInt64,
    events              UInt64
)
ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/{database}/spend_per_day_local', '{replica}', (cost_usd, cost_display, input_tokens, output_tokens, cached_input_tokens, events))
PARTITION BY toYYYYMM(day)
ORDER BY (agent_id, day, department, model)
SETTINGS replicated_deduplication_window = 10000;

-- Read through a Distributed table; written only by the local materialized view on each shard.
CREATE TABLE IF NOT EXISTS spend_per_day ON CLUSTER agent_ops_cluster AS spend_per_day_local
ENGINE = Distributed(agent_ops_cluster, currentDatabase(), spend_per_day_local);

-- Local to local: each shard aggregates the rows it stores; readers sum over the Distributed table.
CREATE MATERIALIZED VIEW IF NOT EXISTS spend_per_day_mv ON CLUSTER agent_ops_cluster TO spend_per_day_local AS
SELECT
    ifNull(agent_id, toUUID('00000000-0000-0000-0000-000000000000')) AS agent_id,
    toDate(occurred_at, 'UTC') AS day,
    department,
    model,
    toDecimal128(sum(cost_usd), 9) AS cost_usd,
    toDecimal128(sum(cost_display), 9) AS cost_display,
    sum(input_tokens) AS input_tokens,
    sum(output_tokens) AS output_tokens,
    sum(cached_input_tokens) AS cached_input_tokens,
    count() AS events
FROM raw_cost_events_local
GROUP BY agent_id, day, department, model;

-- ===== 010_create_raw_spans.sql =====
-- why: one row per OpenTelemetry span as received, the source of traces, telemetry discovery and the per-agent views.
-- agent_id is the registry agent the span resolved to at ingest, the nil UUID when none did
-- (agent_key then keeps the name discovery will register). ORDER BY starts with agent_id because
-- per-agent reads dominate; per-trace reads find a trace's agents and arrival window in
-- span_traces first, then read here with the bloom filter on trace_id. Partitions and TTL use
-- received_at, our own clock: a client clock set to 2200 must not create odd partitions or keep
-- spans forever. The TTL written here is the default of SPAN_RETENTION_DAYS; the store sets the
-- configured value at start (ALTER TABLE ... MODIFY TTL, see lib/analytics/spans-retention.ts).
-- The bloom filter on span_id keeps the loader's "already stored?" check cheap.

CREATE TABLE IF NOT EXISTS raw_spans_local ON CLUSTER agent_ops_cluster
(
    trace_id              String,
    span_id               String,
    parent_span_id        String,
    name                  String,
    kind                  LowCardinality(String),
    start_time            DateTime64(9, 'UTC'),
    end_time              DateTime64(9, 'UTC'),
    duration_ms           Float64,
    status_code           LowCardinality(String),
    status_message        String,
    service_name          LowCardinality(String),
    scope_name            LowCardinality(String),
    scope_version         LowCardinality(String),
    agent_id              UUID,
    agent_key             String,
    gen_ai_agent_id       String,
    gen_ai_agent_name     String,
    model                 LowCardinality(String),
    request_model         LowCardinality(String),
    provider              LowCardinality(String),
    operation             LowCardinality(String),
    input_tokens          UInt64,
    output_tokens         UInt64,
    cache_read_tokens     UInt64,
    cache_creation_tokens UInt64,
    cost_usd              Decimal(18, 9),
    priced                Bool,
    attributes            Map(LowCardinality(String), String),
    resource_attributes   Map(LowCardinality(String), String),
    received_at           DateTime64(3, 'UTC'),
    inserted_at           DateTime64(3, 'UTC') DEFAULT now64(3, 'UTC'),
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_span_id span_id TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/raw_spans_local', '{replica}')
PARTITION BY toYYYYMM(received_at)
ORDER BY (agent_id, start_time, trace_id)
TTL toDateTime(received_at) + INTERVAL 30 DAY
SETTINGS replicated_deduplication_window = 10000;

-- The name the service reads and writes: a Distributed table over the shards.
CREATE TABLE IF NOT EXISTS raw_spans ON CLUSTER agent_ops_cluster AS raw_spans_local
ENGINE = Distributed(agent_ops_cluster, currentDatabase(), raw_spans_local, cityHash64(agent_id));

-- ===== 011_create_span_traces.sql =====
-- why: per-trace reads need to know where a trace's spans sit in raw_spans (sorted by agent first).
-- One row per (trace, agent) and insert block; readers GROUP BY trace_id, so unmerged parts
-- give the same answer. A trace read takes the agents and the received_at window from here and
-- then reads raw_spans with the primary key (agent_id), partition pruning (received_at) and the
-- trace_id bloom filter. Same retention as raw_spans (set together at start).

CREATE TABLE IF NOT EXISTS span_traces_local ON CLUSTER agent_ops_cluster
(
    trace_id      String,
    agent_id      UUID,
    first_received DateTime64(3, 'UTC'),
    last_received  DateTime64(3, 'UTC'),
    spans         UInt64
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/span_traces_local', '{replica}')
PARTITION BY toYYYYMM(first_received)
ORDER BY (trace_id, agent_id)
TTL toDateTime(last_received) + INTERVAL 30 DAY
SETTINGS replicated_deduplication_window = 10000;

-- Read through a Distributed table; written only by the local materialized view on each shard.
CREATE TABLE IF NOT EXISTS span_traces ON CLUSTER agent_ops_cluster AS span_traces_local
ENGINE = Distributed(agent_ops_cluster, currentDatabase(), span_traces_local);

-- Local to local: each shard aggregates the rows it stores; readers sum over the Distributed table.
CREATE MATERIALIZED VIEW IF NOT EXISTS span_traces_mv ON CLUSTER agent_ops_cluster TO span_traces_local AS
SELECT
    trace_id,
    agent_id,
    min(received_at) AS first_received,
    max(received_at) AS last_received,
    count() AS spans
FROM raw_spans_local
GROUP BY trace_id, agent_id;

-- ===== 012_create_agent_telemetry_per_day.sql =====
-- why: per-agent telemetry (spans, errors, latency, models, tokens, telemetry cost) without scanning raw spans.
-- AggregatingMergeTree: sums as SimpleAggregateFunction, latency as a t-digest state merged by
-- readers (quantilesTDigestMerge), so a window of days has exact counts and p50/p95 estimates.
-- Days are the UTC day of start_time (when the work happened). ORDER BY (agent_id, day, ...)
-- serves the per-agent endpoint; the nil agent_id holds spans of unresolved agents. No TTL:
-- a day of one agent is a few rows, so these figures outlive the raw spans on purpose.
-- The dedup window drops a retried block here too (deduplicate_blocks_in_dependent_materialized_views=1).

CREATE TABLE IF NOT EXISTS agent_telemetry_per_day_local ON CLUSTER agent_ops_cluster
(
    agent_id              UUID,
    day                   Date,
    model                 LowCardinality(String),
    provider              LowCardinality(String),
    spans                 SimpleAggregateFunction(sum, UInt64),
    errors                SimpleAggregateFunction(sum, UInt64),
    input_tokens          SimpleAggregateFunction(sum, UInt64),
    output_tokens         SimpleAggregateFunction(sum, UInt64),
    cache_read_tokens     SimpleAggregateFunction(sum, UInt64),
    cache_creation_tokens SimpleAggregateFunction(sum, UInt64),
    cost_usd              SimpleAggregateFunction(sum, Decimal(38, 9)),
    unpriced_spans        SimpleAggregateFunction(sum, UInt64),
    last_received_at      SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    duration_ms_digest    AggregateFunction(quantilesTDigest(0.5, 0.95), Float64)
)
ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/agent_telemetry_per_day_local', '{replica}')
PARTITION BY toYYYYMM(day)
ORDER BY (agent_id, day, model, provider)
SETTINGS replicated_deduplication_window = 10000;

-- Read through a Distributed table; written only by the local materialized view on each shard.
CREATE TABLE IF NOT EXISTS agent_telemetry_per_day ON CLUSTER agent_ops_cluster AS agent_telemetry_per_day_local
ENGINE = Distributed(agent_ops_cluster, currentDatabase(), agent_telemetry_per_day_local);

-- Local to local: each shard aggregates the rows it stores; readers sum over the Distributed table.
CREATE MATERIALIZED VIEW IF NOT EXISTS agent_telemetry_per_day_mv ON CLUSTER agent_ops_cluster TO agent_telemetry_per_day_local AS
SELECT
    agent_id,
    toDate(start_time, 'UTC') AS day,
    model,
    provider,
    toUInt64(count()) AS spans,
    toUInt64(countIf(status_code = 'ERROR')) AS errors,
    sum(input_tokens) AS input_tokens,
    sum(output_tokens) AS output_tokens,
    sum(cache_read_tokens) AS cache_read_tokens,
    sum(cache_creation_tokens) AS cache_creation_tokens,
    toDecimal128(sum(cost_usd), 9) AS cost_usd,
    toUInt64(countIf(NOT priced)) AS unpriced_spans,
    max(received_at) AS last_received_at,
    quantilesTDigestState(0.5, 0.95)(duration_ms) AS duration_ms_digest
FROM raw_spans_local
GROUP BY agent_id, day, model, provider;

-- ===== 013_create_spans_per_hour.sql =====
-- why: /api/v1/otel/status reports spans and services of the last 24 hours; this answers it from a few rows.
-- Hours are of received_at (arrival at the service, our clock), per service.name. Readers
-- GROUP BY and sum(), so unmerged parts never change a figure. Kept 400 days: small, and long
-- enough for a year-over-year look at telemetry volume.

CREATE TABLE IF NOT EXISTS spans_per_hour_local ON CLUSTER agent_ops_cluster
(
    hour         DateTime('UTC'),
    service_name LowCardinality(String),
    spans        UInt64
)
ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/{database}/spans_per_hour_local', '{replica}', spans)
PARTITION BY toYYYYMM(hour)
ORDER BY (hour, service_name)
TTL hour + INTERVAL 400 DAY
SETTINGS replicated_deduplication_window = 10000;

-- Read through a Distributed table; written only by the local materialized view on each shard.
CREATE TABLE IF NOT EXISTS spans_per_hour ON CLUSTER agent_ops_cluster AS spans_per_hour_local
ENGINE = Distributed(agent_ops_cluster, currentDatabase(), spans_per_hour_local);

-- Local to local: each shard aggregates the rows it stores; readers sum over the Distributed table.
CREATE MATERIALIZED VIEW IF NOT EXISTS spans_per_hour_mv ON CLUSTER agent_ops_cluster TO spans_per_hour_local AS
SELECT
    toStartOfHour(received_at) AS hour,
    service_name,
    count() AS spans
FROM raw_spans_local
GROUP BY hour, service_name;
