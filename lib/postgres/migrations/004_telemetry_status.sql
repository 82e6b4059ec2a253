-- why: /api/v1/otel/status must show what arrived and the last rejected export across processes.
-- One row, written by every ingest process at most once a second (timestamps only move forward,
-- counters add deltas), read by the api. observations_through is the watermark of the workers'
-- telemetry observations job (spans inserted up to then have fed the registry).
CREATE TABLE telemetry_status (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  last_span_at timestamptz,
  last_traces_export_at timestamptz,
  last_metrics_export_at timestamptz,
  last_logs_export_at timestamptz,
  spans_accepted_total bigint NOT NULL DEFAULT 0,
  exports_rejected_total bigint NOT NULL DEFAULT 0,
  last_rejected_at timestamptz,
  last_rejected_signal text,
  last_rejected_status integer,
  last_rejected_code text,
  last_rejected_reason text,
  observations_through timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO telemetry_status (id) VALUES (1);
