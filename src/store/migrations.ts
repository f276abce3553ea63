// Numbered by position: migrations[n] brings the schema from user_version n to n+1. Append only.
export const migrations: string[] = [
  `
  CREATE TABLE accounts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    trunking INTEGER NOT NULL DEFAULT 0,
    trunk_capacity INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    last4 TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  );
  CREATE INDEX api_keys_account ON api_keys(account_id);
  CREATE TABLE trunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    status TEXT NOT NULL CHECK (status IN ('pending','active','suspended','revoked')),
    label TEXT,
    client_ref TEXT,
    endpoint_name TEXT NOT NULL UNIQUE,
    sip_password_enc TEXT NOT NULL,
    sip_domain TEXT,
    transport TEXT NOT NULL CHECK (transport IN ('tcp','tls','udp','wss')),
    voice_webhook_url TEXT,
    voice_webhook_method TEXT NOT NULL DEFAULT 'POST',
    cli_lookup_url TEXT,
    cli_lookup_method TEXT NOT NULL DEFAULT 'POST',
    default_caller_id TEXT,
    status_callback_url TEXT,
    status_callback_events TEXT NOT NULL DEFAULT 'completed',
    status_callback_format TEXT,
    hangup_url TEXT,
    dual_channel_recording INTEGER NOT NULL DEFAULT 0,
    allowed_caller_ids TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE INDEX trunks_account ON trunks(account_id, id);
  `,
];
