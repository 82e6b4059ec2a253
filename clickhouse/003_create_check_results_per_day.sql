-- why: accuracy, heatmap and risk read daily pass counts per (agent, check) without scanning raw checks.
-- SummingMergeTree adds rows with the same key when parts merge; readers still GROUP BY and sum(),
-- so figures are right before any merge happens. ORDER BY (agent_id, day, ...) serves the
-- per-agent accuracy query (agent, then a day range); the heatmap scans a few days of a small table.
-- The dedup window matters here too: with deduplicate_blocks_in_dependent_materialized_views=1 a
-- retried insert into raw_check_results is dropped from this table as well.
-- Days are UTC: received_at is DateTime64(3, 'UTC') and toDate is given 'UTC' explicitly.
CREATE TABLE IF NOT EXISTS check_results_per_day
(
    agent_id    UUID,
    day         Date,
    check_id    String,
    severity    LowCardinality(String),
    total_runs  UInt64,
    passed_runs UInt64
)
ENGINE = SummingMergeTree((total_runs, passed_runs))
PARTITION BY toYYYYMM(day)
ORDER BY (agent_id, day, check_id, severity)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS check_results_per_day_mv TO check_results_per_day AS
SELECT
    agent_id,
    toDate(received_at, 'UTC') AS day,
    check_id,
    severity,
    count() AS total_runs,
    countIf(passed) AS passed_runs
FROM raw_check_results
GROUP BY agent_id, day, check_id, severity;
