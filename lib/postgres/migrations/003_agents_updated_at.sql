-- why: the ingest tier polls for agents changed since its last look (updated_at > cursor);
-- without this index every poll scans the whole registry.
CREATE INDEX agents_updated_at ON agents (updated_at);
