// The preview API's tables: a migration of src/store/migrations.ts, in its order there.
// Preview API: organisation settings, webhook subscriptions, the delivery outbox and injected leads.
export const PREVIEW_SCHEMA = `
  CREATE TABLE org_settings (
    account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
    webhook_hosts TEXT NOT NULL DEFAULT '[]',
    injection_ips TEXT NOT NULL DEFAULT '[]',
    injection_token_hash TEXT,
    injection_token_rotated_at TEXT,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE webhook_subscriptions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    event_type TEXT NOT NULL,
    target_url TEXT NOT NULL,
    headers TEXT NOT NULL DEFAULT '{}',
    delivery_mode TEXT NOT NULL CHECK (delivery_mode IN ('sync','async')),
    timeout_ms INTEGER NOT NULL,
    max_retries INTEGER NOT NULL,
    secret_enc TEXT NOT NULL,
    payload_template TEXT,
    status TEXT NOT NULL CHECK (status IN ('active','paused')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (account_id, event_type)
  );
  CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    event_type TEXT NOT NULL,
    call_sid TEXT,
    occurred_at TEXT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sid TEXT NOT NULL UNIQUE,
    event_id INTEGER NOT NULL REFERENCES events(id),
    subscription_id INTEGER NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('pending','delivered','exhausted')),
    attempt_count INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    claimed_until INTEGER,
    created_at TEXT NOT NULL,
    completed_at TEXT
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
  CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries(subscription_id, id);
  CREATE TABLE webhook_delivery_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    status_code INTEGER,
    latency_ms INTEGER NOT NULL,
    error TEXT
  );
  CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts(delivery_id, attempt);
  CREATE TABLE leads (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    phone TEXT NOT NULL,
    campaign TEXT NOT NULL,
    attributes TEXT NOT NULL,
    status TEXT NOT NULL,
    source_ip TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX leads_account ON leads(account_id, id);
  `;
