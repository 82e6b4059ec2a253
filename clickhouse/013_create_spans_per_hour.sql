-- why: /api/v1/otel/status reports spans and services of the last 24 hours; this answers it from a few rows.
-- Hours are of received_at (arrival at the service, our clock), per service.name. Readers
-- GROUP BY and sum(), so unmerged parts never change a figure. Kept 400 days: small, and long
-- enough for a year-over-year look at telemetry volume.
CREATE TABLE IF NOT EXISTS spans_per_hour
(
    hour         DateTime('UTC'),
    service_name LowCardinality(String),
    spans        UInt64
)
ENGINE = SummingMergeTree(spans)
PARTITION BY toYYYYMM(hour)
ORDER BY (hour, service_name)
TTL hour + INTERVAL 400 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS spans_per_hour_mv TO spans_per_hour AS
SELECT
    toStartOfHour(received_at) AS hour,
    service_name,
    count() AS spans
FROM raw_spans
GROUP BY hour, service_name;
