// The ACD's tables (docs/acd.md, Storage): queues, agents and the queues they serve, callers waiting, dispositions,
// scheduled callbacks and lead campaigns' speed-to-lead settings. One migration of src/store/migrations.ts.
export const ACD_SCHEMA = `
  CREATE TABLE acd_queues (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    friendly_name TEXT NOT NULL,
    max_wait_seconds INTEGER NOT NULL,
    ring_timeout_seconds INTEGER NOT NULL,
    wrap_up_seconds INTEGER NOT NULL,
    max_no_answer INTEGER NOT NULL,
    wait_url TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (account_id, friendly_name)
  );
  CREATE TABLE acd_agents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    friendly_name TEXT NOT NULL,
    trunk_id INTEGER NOT NULL REFERENCES trunks(id),
    status TEXT NOT NULL CHECK (status IN ('offline', 'available', 'break')),
    break_reason TEXT,
    activity TEXT NOT NULL CHECK (activity IN ('idle', 'reserved', 'ringing', 'busy', 'wrap-up')),
    current_call_sid TEXT,
    idle_since INTEGER NOT NULL,
    wrap_up_ends_at INTEGER,
    missed_in_a_row INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX acd_agents_account ON acd_agents(account_id, id);
  CREATE INDEX acd_agents_free ON acd_agents(status, activity, idle_since, id);
  CREATE TABLE acd_agent_queues (
    agent_id INTEGER NOT NULL REFERENCES acd_agents(id) ON DELETE CASCADE,
    queue_id INTEGER NOT NULL REFERENCES acd_queues(id) ON DELETE CASCADE,
    PRIMARY KEY (agent_id, queue_id)
  );
  CREATE INDEX acd_agent_queues_queue ON acd_agent_queues(queue_id, agent_id);
  CREATE TABLE acd_members (
    call_sid TEXT PRIMARY KEY,
    queue_id INTEGER NOT NULL REFERENCES acd_queues(id),
    enqueued_at INTEGER NOT NULL,
    offered_to INTEGER REFERENCES acd_agents(id)
  );
  CREATE INDEX acd_members_queue ON acd_members(queue_id, enqueued_at);
  CREATE TABLE acd_dispositions (
    id INTEGER PRIMARY KEY,
    sid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    call_sid TEXT NOT NULL,
    agent_sid TEXT,
    disposition TEXT NOT NULL,
    notes TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX acd_dispositions_call ON acd_dispositions(call_sid);
  CREATE TABLE acd_callbacks (
    id INTEGER PRIMARY KEY,
    sid TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    queue_id INTEGER REFERENCES acd_queues(id) ON DELETE SET NULL,
    to_number TEXT NOT NULL,
    from_number TEXT NOT NULL,
    due_at INTEGER NOT NULL,
    attributes TEXT NOT NULL,
    lead_sid TEXT,
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'dialing', 'completed', 'failed', 'canceled')),
    attempts INTEGER NOT NULL DEFAULT 0,
    call_sid TEXT,
    agent_sid TEXT,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX acd_callbacks_due ON acd_callbacks(status, due_at);
  CREATE INDEX acd_callbacks_account ON acd_callbacks(account_id, id);
  CREATE TABLE lead_campaigns (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL,
    speed_to_lead_queue_id INTEGER REFERENCES acd_queues(id) ON DELETE SET NULL,
    caller_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (account_id, name)
  );
`;

// A queue's answering-machine detection for the customers its callbacks (and speed-to-lead leads) dial: off (null),
// 'enable' or 'detect_message_end'; what a machine answer gets ('retry' later, or a 'message' said after its greeting
// ends); the message. A later migration of src/store/migrations.ts.
export const ACD_QUEUE_MACHINE_DETECTION = `
  ALTER TABLE acd_queues ADD COLUMN machine_detection TEXT;
  ALTER TABLE acd_queues ADD COLUMN machine_action TEXT NOT NULL DEFAULT 'retry';
  ALTER TABLE acd_queues ADD COLUMN machine_message TEXT;
`;
