// The tables of the limits several control planes on one PostgreSQL database share (docs/postgresql.md, "Limits
// shared by the nodes"). One migration of src/store/migrations.ts.
export const SHARED_LIMITS_SCHEMA = `
  CREATE TABLE cps_admissions (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    admitted_at INTEGER NOT NULL
  );
  CREATE INDEX cps_admissions_account ON cps_admissions(account_id, admitted_at);
  CREATE TABLE auth_failure_windows (
    source TEXT PRIMARY KEY,
    started_at INTEGER NOT NULL,
    failures INTEGER NOT NULL
  );
  CREATE INDEX auth_failure_windows_started ON auth_failure_windows(started_at);
  CREATE TABLE auth_known_keys (
    source TEXT NOT NULL,
    key_id INTEGER NOT NULL,
    seen_at INTEGER NOT NULL,
    PRIMARY KEY (source, key_id)
  );
  CREATE INDEX auth_known_keys_seen ON auth_known_keys(seen_at);
  CREATE TABLE sign_in_failures (
    email TEXT NOT NULL,
    source TEXT NOT NULL,
    failures INTEGER NOT NULL,
    last_failure_at INTEGER NOT NULL,
    PRIMARY KEY (email, source)
  );
  CREATE INDEX sign_in_failures_last ON sign_in_failures(last_failure_at);
  `;
