-- why: cost summary, agent cost detail, department spend and observed models read daily sums, not the ledger.
-- Unattributed events get the nil UUID here (a sort key column cannot be NULL without
-- allow_nullable_key, and one bucket for "no registry agent" is all reads need). ORDER BY starts
-- with agent_id for the per-agent detail; department and model are key columns so they survive
-- summing. Readers GROUP BY and sum(), so unmerged parts never change a figure. The dedup window
-- drops a retried block here too (deduplicate_blocks_in_dependent_materialized_views=1).
CREATE TABLE IF NOT EXISTS spend_per_day
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
ENGINE = SummingMergeTree((cost_usd, cost_display, input_tokens, output_tokens, cached_input_tokens, events))
PARTITION BY toYYYYMM(day)
ORDER BY (agent_id, day, department, model)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS spend_per_day_mv TO spend_per_day AS
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
FROM raw_cost_events
GROUP BY agent_id, day, department, model;
