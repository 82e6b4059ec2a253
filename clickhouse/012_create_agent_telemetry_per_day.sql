-- why: per-agent telemetry (spans, errors, latency, models, tokens, telemetry cost) without scanning raw spans.
-- AggregatingMergeTree: sums as SimpleAggregateFunction, latency as a t-digest state merged by
-- readers (quantilesTDigestMerge), so a window of days has exact counts and p50/p95 estimates.
-- Days are the UTC day of start_time (when the work happened). ORDER BY (agent_id, day, ...)
-- serves the per-agent endpoint; the nil agent_id holds spans of unresolved agents. No TTL:
-- a day of one agent is a few rows, so these figures outlive the raw spans on purpose.
-- The dedup window drops a retried block here too (deduplicate_blocks_in_dependent_materialized_views=1).
CREATE TABLE IF NOT EXISTS agent_telemetry_per_day
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
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (agent_id, day, model, provider)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS agent_telemetry_per_day_mv TO agent_telemetry_per_day AS
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
FROM raw_spans
GROUP BY agent_id, day, model, provider;
