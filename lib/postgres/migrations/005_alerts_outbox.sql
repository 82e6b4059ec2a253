-- why: every alert and weekly report is recorded before it is sent (decisions §10), so a restart
-- neither loses one (a pending row is sent by the next sender) nor repeats one (the unique key
-- of condition + subject + period makes a second detection a no-op).
CREATE TABLE email_outbox (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- condition:subject:period, e.g. 'budget_80:Sales:2026-11' or 'weekly_report:2026-W47'.
  key text NOT NULL UNIQUE,
  kind text NOT NULL,
  -- pending → sending (leased) → sent; retry goes back to pending with a later next_attempt_at;
  -- failed after the last attempt; skipped when nobody could receive it; superseded when a
  -- stronger alert of the same subject and period was sent instead (budget 100 % over 80 %).
  state text NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'sending', 'sent', 'failed', 'skipped', 'superseded')),
  -- The facts that triggered it (figures, thresholds, agent), for the log and the dashboard.
  details jsonb NOT NULL DEFAULT '{}',
  -- Rendered once at detection: subject, text, html, attachments (base64). A retry after a
  -- restart sends the very same message.
  message jsonb NOT NULL,
  detected_at timestamptz NOT NULL,
  -- Latest delivery promised: detected_at + 2 business hours in the instance's time zone.
  due_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_until timestamptz,
  recipients text[] NOT NULL DEFAULT '{}',
  last_error text,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- The sender's poll: due rows only, oldest first.
CREATE INDEX email_outbox_due ON email_outbox (next_attempt_at) WHERE state IN ('pending', 'sending');
CREATE INDEX email_outbox_detected ON email_outbox (detected_at DESC);
