-- why: one row per check of a quality signal, the input of the per-day accuracy view and of drill-downs.
-- Same month partitions as raw_signals. ORDER BY (agent_id, received_at, check_id): reads are per
-- agent over a time window, and a signal's checks sit together so the signals list can fetch them.
-- expected/actual/delta stay text: the spec carries them as decimal strings and we keep them exact.
CREATE TABLE IF NOT EXISTS raw_check_results
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
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (agent_id, received_at, check_id)
SETTINGS non_replicated_deduplication_window = 10000;
