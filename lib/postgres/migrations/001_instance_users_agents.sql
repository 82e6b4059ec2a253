-- why: the registry, accounts and instance settings are the governed state of an instance.

-- One row: the instance's own settings, set by the operator script and by admins.
CREATE TABLE instance_settings (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  company_name text NOT NULL DEFAULT 'Unnamed company',
  plan text NOT NULL DEFAULT 'professional' CHECK (plan IN ('professional', 'enterprise')),
  agent_limit integer NOT NULL DEFAULT 100 CHECK (agent_limit >= 0),
  display_currency char(3) NOT NULL DEFAULT 'USD',
  usd_rate numeric(20, 10) NOT NULL DEFAULT 1 CHECK (usd_rate > 0),
  signup_enabled boolean NOT NULL DEFAULT false,
  alert_contacts text[] NOT NULL DEFAULT '{}',
  code_scan_folders text[] NOT NULL DEFAULT '{}',
  business_hours_start smallint NOT NULL DEFAULT 9,
  business_hours_end smallint NOT NULL DEFAULT 17,
  business_days smallint[] NOT NULL DEFAULT '{1,2,3,4,5}',
  time_zone text NOT NULL DEFAULT 'UTC',
  report_weekday smallint NOT NULL DEFAULT 5,
  report_hour smallint NOT NULL DEFAULT 9,
  -- Signing key of access tokens: generated once, shared by every api process of the instance.
  -- gen_random_uuid() draws from pg_strong_random: two of them give 244 random bits.
  jwt_secret bytea NOT NULL DEFAULT (uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())),
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO instance_settings (id) VALUES (1);

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  name text,
  password_hash text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'member')),
  password_change_required boolean NOT NULL DEFAULT false,
  trial_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- Opaque refresh tokens, stored as SHA-256 digests. A family is one login's chain of
-- rotations: reusing a rotated token revokes the whole family.
CREATE TABLE refresh_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  family_id uuid NOT NULL,
  token_hash bytea NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  rotated_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

-- Failed logins per key ('account:<email>' or 'address:<ip>') in a sliding window.
CREATE TABLE login_failures (
  key text PRIMARY KEY,
  failures integer NOT NULL,
  window_started_at timestamptz NOT NULL,
  locked_until timestamptz
);

CREATE TABLE agents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  external_id text NOT NULL,
  name text NOT NULL,
  framework text NOT NULL,
  status text NOT NULL CHECK (status IN ('APPROVED', 'DISCOVERED', 'PENDING_REVIEW')),
  risk_score integer NOT NULL DEFAULT 0,
  risk_level text NOT NULL DEFAULT 'LOW' CHECK (risk_level IN ('CRITICAL', 'HIGH', 'MEDIUM', 'LOW')),
  risk_factors jsonb NOT NULL DEFAULT '[]',
  discrepancies jsonb NOT NULL DEFAULT '[]',
  owner_email text,
  department text,
  contains_pii boolean NOT NULL DEFAULT false,
  external_llm_calls boolean NOT NULL DEFAULT false,
  writes_to_systems boolean NOT NULL DEFAULT false,
  hitl_required boolean NOT NULL DEFAULT false,
  primary_model text,
  model_provider text,
  endpoint_url text,
  version text,
  description text,
  -- What beacons, signals, costs, spans and scans observed; inputs of risk and discrepancies.
  observed jsonb NOT NULL DEFAULT '{}',
  probe_reachable boolean,
  probe_tls_valid boolean,
  source text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'beacon', 'signal', 'discovery', 'telemetry')),
  last_seen_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX agents_external_id_key ON agents (external_id);
CREATE INDEX agents_risk ON agents (risk_score DESC, id);
CREATE INDEX agents_name ON agents (lower(name));
CREATE INDEX agents_status ON agents (status);
CREATE INDEX agents_department ON agents (department);

CREATE TABLE service_accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  token_hash bytea NOT NULL UNIQUE,
  token_prefix text NOT NULL,
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);

CREATE TABLE department_budgets (
  department text NOT NULL,
  month date NOT NULL CHECK (extract(day FROM month) = 1),
  budget_amount numeric(20, 4) NOT NULL CHECK (budget_amount >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (department, month)
);

-- Operator price overrides and additions, USD per million tokens.
CREATE TABLE model_prices (
  model text PRIMARY KEY,
  provider text,
  input_per_million numeric(20, 6) NOT NULL CHECK (input_per_million >= 0),
  output_per_million numeric(20, 6) NOT NULL CHECK (output_per_million >= 0),
  cached_input_per_million numeric(20, 6) CHECK (cached_input_per_million >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);
