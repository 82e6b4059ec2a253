-- why: one row per quality signal as received, the source of the signals list and per-agent history.
-- Partitioned by month so retention can drop whole months. ORDER BY starts with agent_id because
-- every read is per agent (signals list, newest first), then time. The bloom filter on signal_id
-- keeps the loader's "which of these ids exist already" check from scanning every granule.
-- non_replicated_deduplication_window makes a retried insert with the same
-- insert_deduplication_token a no-op (ClickHouse only deduplicates non-replicated tables when set).
CREATE TABLE IF NOT EXISTS raw_signals
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
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (agent_id, received_at, signal_id)
SETTINGS non_replicated_deduplication_window = 10000;
