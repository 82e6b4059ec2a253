-- why: discovery scans are requested by the api tier and run by whichever workers process
-- claims them first; the row is the queue entry, the progress and the result.

CREATE TABLE discovery_scans (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  scanner text NOT NULL CHECK (scanner IN ('telemetry', 'ledger', 'code', 'endpoints', 'all')),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  requested_by uuid REFERENCES users (id) ON DELETE SET NULL,
  -- When the scan was requested (the answer's started_at); running_at when a worker took it.
  started_at timestamptz NOT NULL DEFAULT now(),
  running_at timestamptz,
  finished_at timestamptz,
  -- A running scan whose heartbeat stops (its process died) is put back in the queue.
  heartbeat_at timestamptz,
  claimed_by text,
  attempts integer NOT NULL DEFAULT 0,
  found integer NOT NULL DEFAULT 0,
  created integer NOT NULL DEFAULT 0,
  updated integer NOT NULL DEFAULT 0,
  not_created integer NOT NULL DEFAULT 0,
  -- Per-scanner detail: status, counts, the agents it touched, scanner-specific figures.
  results jsonb NOT NULL DEFAULT '{}',
  error text
);
CREATE INDEX discovery_scans_recent ON discovery_scans (started_at DESC, id DESC);
CREATE INDEX discovery_scans_queued ON discovery_scans (started_at) WHERE status = 'queued';
CREATE INDEX discovery_scans_running ON discovery_scans (heartbeat_at) WHERE status = 'running';
-- A scan that has not started yet covers every later request for the same scanner: repeated
-- clicks coalesce into one queued scan instead of a backlog of identical work.
CREATE UNIQUE INDEX discovery_scans_one_queued ON discovery_scans (scanner) WHERE status = 'queued';

-- Wakes listening workers at once; they also poll, so a missed notification only delays.
CREATE FUNCTION discovery_scan_queued_notify() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('discovery_scan_queued', NEW.id::text);
  RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER discovery_scan_queued
  AFTER INSERT OR UPDATE OF status ON discovery_scans
  FOR EACH ROW WHEN (NEW.status = 'queued')
  EXECUTE FUNCTION discovery_scan_queued_notify();
