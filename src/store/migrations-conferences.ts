// Conferences' tables: a migration of src/store/migrations.ts, in its order there.
// Conferences (preview API, <Dial><Conference>) and their participants. A friendly name addresses the account's
// conference of that name that has not completed: at most one such row per name (the partial unique index).
export const CONFERENCES_SCHEMA = `
  CREATE TABLE conferences (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    friendly_name TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('init','in-progress','completed')),
    record INTEGER NOT NULL DEFAULT 0,
    max_participants INTEGER NOT NULL,
    status_callback TEXT,
    status_callback_method TEXT NOT NULL DEFAULT 'POST',
    status_callback_events TEXT NOT NULL DEFAULT '',
    sequence INTEGER NOT NULL DEFAULT 0,
    end_reason TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    started_at TEXT,
    ended_at TEXT
  );
  CREATE UNIQUE INDEX conferences_open_name ON conferences(account_id, friendly_name) WHERE status <> 'completed';
  CREATE INDEX conferences_account ON conferences(account_id, id);
  CREATE TABLE conference_participants (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conference_sid TEXT NOT NULL REFERENCES conferences(sid),
    call_sid TEXT NOT NULL,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    status TEXT NOT NULL CHECK (status IN ('connecting','in-progress','completed')),
    muted INTEGER NOT NULL DEFAULT 0,
    hold INTEGER NOT NULL DEFAULT 0,
    hold_url TEXT,
    coaching INTEGER NOT NULL DEFAULT 0,
    call_sid_to_coach TEXT,
    start_conference_on_enter INTEGER NOT NULL DEFAULT 1,
    end_conference_on_exit INTEGER NOT NULL DEFAULT 0,
    status_callback TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (conference_sid, call_sid)
  );
  CREATE INDEX conference_participants_call ON conference_participants(call_sid);
  `;
