-- why: per-trace reads need to know where a trace's spans sit in raw_spans (sorted by agent first).
-- One row per (trace, agent) and insert block; readers GROUP BY trace_id, so unmerged parts
-- give the same answer. A trace read takes the agents and the received_at window from here and
-- then reads raw_spans with the primary key (agent_id), partition pruning (received_at) and the
-- trace_id bloom filter. Same retention as raw_spans (set together at start).
CREATE TABLE IF NOT EXISTS span_traces
(
    trace_id      String,
    agent_id      UUID,
    first_received DateTime64(3, 'UTC'),
    last_received  DateTime64(3, 'UTC'),
    spans         UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(first_received)
ORDER BY (trace_id, agent_id)
TTL toDateTime(last_received) + INTERVAL 30 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS span_traces_mv TO span_traces AS
SELECT
    trace_id,
    agent_id,
    min(received_at) AS first_received,
    max(received_at) AS last_received,
    count() AS spans
FROM raw_spans
GROUP BY trace_id, agent_id;
