-- why: one row per priced LLM call (cost events and signals with tokens), the ledger behind every cost figure.
-- agent_id is NULL for an agent not in the registry (unattributed cost); allow_nullable_key lets
-- it lead the sort key anyway, because reads are per agent over a time window. Month partitions
-- by occurred_at, the time cost reports bucket by. department is copied in at ingest so department
-- spend needs no join with PostgreSQL. Money is Decimal so sums are exact; the price snapshot
-- records what each event was priced at, so later price changes never rewrite history.
CREATE TABLE IF NOT EXISTS raw_cost_events
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
ENGINE = MergeTree
PARTITION BY toYYYYMM(occurred_at)
ORDER BY (agent_id, occurred_at, event_id)
SETTINGS allow_nullable_key = 1, non_replicated_deduplication_window = 10000;
