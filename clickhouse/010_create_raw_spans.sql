-- why: one row per OpenTelemetry span as received, the source of traces, telemetry discovery and the per-agent views.
-- agent_id is the registry agent the span resolved to at ingest, the nil UUID when none did
-- (agent_key then keeps the name discovery will register). ORDER BY starts with agent_id because
-- per-agent reads dominate; per-trace reads find a trace's agents and arrival window in
-- span_traces first, then read here with the bloom filter on trace_id. Partitions and TTL use
-- received_at, our own clock: a client clock set to 2200 must not create odd partitions or keep
-- spans forever. The TTL written here is the default of SPAN_RETENTION_DAYS; the store sets the
-- configured value at start (ALTER TABLE ... MODIFY TTL, see lib/analytics/spans-retention.ts).
-- The bloom filter on span_id keeps the loader's "already stored?" check cheap.
CREATE TABLE IF NOT EXISTS raw_spans
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
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (agent_id, start_time, trace_id)
TTL toDateTime(received_at) + INTERVAL 30 DAY
SETTINGS non_replicated_deduplication_window = 10000;
