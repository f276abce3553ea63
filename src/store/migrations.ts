import { ACD_QUEUE_MACHINE_DETECTION, ACD_SCHEMA } from './migrations-acd.js';
import { SHARED_LIMITS_SCHEMA } from './migrations-shared-limits.js';
import { RECORDING_TRANSCRIPTION, SPEECH_SETTINGS, VOICE_SETTINGS } from './migrations-speech.js';
import { CALL_DAYS } from './migrations-rollups.js';
import { CARRIER_GATEWAYS } from './migrations-carriers.js';
import { PREVIEW_SCHEMA } from './migrations-preview.js';
import { CONFERENCES_SCHEMA } from './migrations-conferences.js';

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
  `
  ALTER TABLE accounts ADD COLUMN signing_secret_enc TEXT;
  CREATE TABLE numbers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    e164 TEXT NOT NULL UNIQUE,
    account_id INTEGER REFERENCES accounts(id),
    settings TEXT NOT NULL,
    created_at TEXT NOT NULL,
    claimed_at TEXT
  );
  CREATE INDEX numbers_account ON numbers(account_id);
  CREATE TABLE calls (
    sid TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    direction TEXT NOT NULL,
    from_addr TEXT NOT NULL,
    to_addr TEXT NOT NULL,
    status TEXT NOT NULL,
    number_id INTEGER REFERENCES numbers(id),
    trunk_id INTEGER REFERENCES trunks(id),
    parent_sid TEXT,
    created_at TEXT NOT NULL,
    answered_at TEXT,
    ended_at TEXT,
    duration INTEGER,
    hangup_cause TEXT
  );
  CREATE INDEX calls_account ON calls(account_id, created_at);
  CREATE TABLE call_timeline (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    call_sid TEXT NOT NULL REFERENCES calls(sid),
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
  );
  CREATE INDEX call_timeline_call ON call_timeline(call_sid, id);
  CREATE TABLE recordings (
    sid TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    call_sid TEXT NOT NULL REFERENCES calls(sid),
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    tracks TEXT NOT NULL,
    channels INTEGER NOT NULL,
    file TEXT NOT NULL,
    duration_ms INTEGER,
    callback_url TEXT,
    created_at TEXT NOT NULL,
    completed_at TEXT
  );
  CREATE INDEX recordings_call ON recordings(call_sid);
  `,
  `
  ALTER TABLE accounts ADD COLUMN cps_cap INTEGER NOT NULL DEFAULT 5;
  ALTER TABLE accounts ADD COLUMN recording_controls INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE calls ADD COLUMN callback_url TEXT;
  ALTER TABLE calls ADD COLUMN callback_events TEXT;
  ALTER TABLE calls ADD COLUMN callback_method TEXT;
  ALTER TABLE recordings ADD COLUMN immutable INTEGER NOT NULL DEFAULT 0;
  `,
  `
  CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    email TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    locked_until TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX users_account ON users(account_id);
  CREATE TABLE user_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    purpose TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE TABLE user_sessions (
    token_hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    csrf_token TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX user_sessions_user ON user_sessions(user_id);
  `,
  PREVIEW_SCHEMA,
  `
  CREATE TABLE carriers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    host TEXT NOT NULL,
    port INTEGER,
    prefix TEXT,
    created_at TEXT NOT NULL
  );
  `,
  // SIP registrations of trunks and WebRTC clients, kept across restarts until they expire (expires_at in ms, as
  // the registrar's clock reads). No foreign key to trunks: the engine knows a trunk only by the endpoint name it
  // was provisioned with, and revoking or suspending a trunk removes its rows.
  `
  CREATE TABLE sip_registrations (
    endpoint_name TEXT NOT NULL,
    contact TEXT NOT NULL,
    proxy TEXT NOT NULL,
    transport TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (endpoint_name, contact)
  );
  CREATE INDEX sip_registrations_expiry ON sip_registrations(expires_at);
  `,
  CONFERENCES_SCHEMA,
  // Crash reconciliation: each control-plane process beats here; calls and recordings name the process that
  // runs them, so a process starting up (or a peer sharing the database) can finish what a dead one left open.
  `
  CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    beat_at TEXT NOT NULL
  );
  ALTER TABLE calls ADD COLUMN owner TEXT;
  ALTER TABLE recordings ADD COLUMN owner TEXT;
  ALTER TABLE calls ADD COLUMN orphan_ref TEXT;
  CREATE INDEX calls_open_owner ON calls(owner) WHERE ended_at IS NULL;
  CREATE INDEX recordings_open_owner ON recordings(owner) WHERE status IN ('in-progress', 'paused');
  `,
  // Custom webhook header values sealed with the master key: headers_enc holds the sealed values, `headers` keeps
  // the names with masked values. Rows from before stay readable: the server seals them at start
  // (events/subscription-headers.ts, sealLegacyHeaders), since plain SQL cannot reach the master key.
  `
  ALTER TABLE webhook_subscriptions ADD COLUMN headers_enc TEXT;
  `,
  // Conference recordings: the room's mix, listed under the conference and under the call that started it.
  `
  ALTER TABLE recordings ADD COLUMN conference_sid TEXT;
  CREATE INDEX recordings_conference ON recordings(conference_sid) WHERE conference_sid IS NOT NULL;
  `,
  // Sign-in failures are counted per (email, source address) in memory (users/sign-in-delay.ts), no longer per
  // user: a per-user lock let anyone lock a user out.
  `
  ALTER TABLE users DROP COLUMN failed_attempts;
  ALTER TABLE users DROP COLUMN locked_until;
  `,
  // Durable per-resource callbacks (conference status callbacks): queued with the change, delivered in order per
  // stream under a lease (src/callbacks).
  `
  CREATE TABLE callback_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    stream TEXT NOT NULL,
    url TEXT NOT NULL,
    method TEXT NOT NULL,
    fields TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'exhausted')),
    attempt_count INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    lease_until INTEGER NOT NULL,
    last_status_code INTEGER,
    last_error TEXT,
    created_at TEXT NOT NULL,
    completed_at TEXT
  );
  CREATE INDEX callback_outbox_pending ON callback_outbox(status, next_attempt_at) WHERE status = 'pending';
  CREATE INDEX callback_outbox_stream ON callback_outbox(stream, id);
  `,
  // API keys get a name their owner chooses ("billing server"), so a list of keys says which is which.
  `
  ALTER TABLE api_keys ADD COLUMN name TEXT;
  `,
  // The callback outbox's ordering rule looks for an earlier pending row of the same stream: index only pending
  // rows, so the look stays short however many delivered callbacks a stream has (src/callbacks/store.ts).
  `
  DROP INDEX callback_outbox_stream;
  CREATE INDEX callback_outbox_pending_stream ON callback_outbox(stream, id) WHERE status = 'pending';
  `,
  // The ACD (src/acd): queues, the agents who take their calls and which queues each serves, and the callers
  // waiting in a queue. An agent's status is the agent's choice; its activity is the platform's (docs/acd.md).
  ACD_SCHEMA,
  // Callers wait in line in the order they came, ties on the same millisecond included: an id gives that order on
  // both backends (SQLite's rowid, which gave it before, does not exist on PostgreSQL). Waiting callers are kept.
  `
  CREATE TABLE acd_members_in_line (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    call_sid TEXT NOT NULL UNIQUE,
    queue_id INTEGER NOT NULL REFERENCES acd_queues(id),
    enqueued_at INTEGER NOT NULL,
    offered_to INTEGER REFERENCES acd_agents(id)
  );
  INSERT INTO acd_members_in_line (call_sid, queue_id, enqueued_at, offered_to)
    SELECT call_sid, queue_id, enqueued_at, offered_to FROM acd_members ORDER BY queue_id, enqueued_at;
  DROP TABLE acd_members;
  ALTER TABLE acd_members_in_line RENAME TO acd_members;
  CREATE INDEX acd_members_queue ON acd_members(queue_id, enqueued_at, id);
  `,
  // Crash reconciliation with several survivors (PostgreSQL): a survivor claims a dead instance before finishing its
  // calls, so two never both release its engine calls and send its callbacks (src/recovery/reconcile.ts).
  `
  ALTER TABLE instances ADD COLUMN reconciled_by TEXT;
  `,
  // Limits that several control planes on one PostgreSQL database must share: the calls-per-second log (one row per
  // call admitted in the last second, src/calls/shared-cps-limiter.ts), failed API-key windows per source and the
  // keys known there (src/http/shared-auth-throttle.ts), and dashboard sign-in failures per (email, source)
  // (src/users/shared-sign-in-delays.ts). On SQLite, one process's memory holds them and these tables stay empty.
  SHARED_LIMITS_SCHEMA,
  // A trunk's fallback URL: asked when its voice webhook (or an action URL of its call) is unavailable.
  `
  ALTER TABLE trunks ADD COLUMN voice_fallback_url TEXT;
  ALTER TABLE trunks ADD COLUMN voice_fallback_method TEXT NOT NULL DEFAULT 'POST';
  `,
  // A trunk's transfer URL: asked when one side of a bridged call of the trunk asks for a blind transfer (REFER).
  `
  ALTER TABLE trunks ADD COLUMN voice_refer_url TEXT;
  ALTER TABLE trunks ADD COLUMN voice_refer_method TEXT NOT NULL DEFAULT 'POST';
  `,
  // Where each control plane answers its peers: a command for a call another node carries is forwarded there
  // (src/http/cluster/). Null until the node listens, and for nodes that do not advertise.
  `
  ALTER TABLE instances ADD COLUMN address TEXT;
  `,
  // The media server a conference's room is mixed on (its ESL address, as FREESWITCH_SERVERS names it): members
  // joining through any control plane go to that room (src/conferences/service.ts). Null until someone joins.
  `
  ALTER TABLE conferences ADD COLUMN media_server TEXT;
  `,
  // When a control plane began draining (SIGTERM, or `ringbase node drain` asked it here): it takes no new calls
  // and leaves once its calls end (docs/cluster.md).
  `
  ALTER TABLE instances ADD COLUMN draining_at TEXT;
  `,
  // Which control plane claimed a callback it is dialing: put back only once that process is gone (src/acd/callbacks.ts).
  `
  ALTER TABLE acd_callbacks ADD COLUMN claimed_by TEXT;
  `,
  // The preview root's per-key request windows, shared by the control planes on PostgreSQL
  // (src/http/preview/shared-rate-limit.ts); on SQLite one process's memory holds them and the table stays empty.
  `
  CREATE TABLE preview_rate_windows (
    key TEXT PRIMARY KEY,
    started_at INTEGER NOT NULL,
    requests INTEGER NOT NULL
  );
  CREATE INDEX preview_rate_windows_started ON preview_rate_windows(started_at);
  `,
  // What answered an outbound call placed with answering-machine detection (src/calls/machine-detection.ts): human,
  // machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax or unknown; null when none ran.
  `
  ALTER TABLE calls ADD COLUMN answered_by TEXT;
  `,
  ACD_QUEUE_MACHINE_DETECTION,
  // What answered a participant added with answering-machine detection (as calls.answered_by); null when none ran.
  'ALTER TABLE conference_participants ADD COLUMN answered_by TEXT;',
  SPEECH_SETTINGS,
  RECORDING_TRANSCRIPTION,
  VOICE_SETTINGS,
  // The claim's order (due first, then oldest) read straight from an index of the pending deliveries alone, so a
  // claim stops after the rows it takes. Ordered by due time alone among every delivery's status, a claim read and
  // sorted every pending row, and on PostgreSQL every stale index entry the deliveries' updates leave until vacuum.
  `
  DROP INDEX webhook_deliveries_due;
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at, id) WHERE status = 'pending';
  `,
  CALL_DAYS,
  CARRIER_GATEWAYS,
];
