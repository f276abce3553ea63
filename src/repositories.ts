import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { DB_FILE, openDatabase } from './store/open-database.js';
import { PostgresListener } from './store/postgres-listener.js';
import type { SqlDb } from './store/sql.js';
import { SqliteDb } from './store/sqlite-db.js';
import { SqliteDataVersion } from './store/read-cache.js';
import { noSignals, type Signals } from './store/signals.js';
import { randomLowerAlnum } from './crypto/tokens.js';
import { AccountRepo } from './store/accounts.js';
import { ApiKeyRepo } from './store/api-keys.js';
import { TrunkRepo } from './store/trunks.js';
import { NumberRepo } from './numbers/repo.js';
import { CallRepo } from './store/calls.js';
import { RecordingRepo } from './store/recordings.js';
import { CarrierRepo } from './store/carriers.js';
import { RegistrationRepo } from './store/registrations.js';
import { UserRepo } from './users/repo.js';
import { OrgSettingsRepo } from './org/settings.js';
import { LeadRepo } from './org/leads.js';
import { SubscriptionRepo } from './events/subscriptions.js';
import { ConferenceRepo } from './conferences/repo.js';
import { InstanceRepo } from './recovery/instances.js';
import { QueueRepo } from './acd/queues.js';
import { AgentRepo } from './acd/agents.js';
import { DispositionRepo } from './acd/dispositions.js';
import { CallbackRepo } from './acd/callbacks.js';
import { LeadCampaignRepo } from './acd/campaigns.js';
import { SpeechSettingsRepo } from './speech/settings.js';
import { VoiceSettingsRepo } from './speech/voice-settings.js';

export { DB_FILE };

export interface Store {
  /** The database as converted repositories use it (promises; SQLite or PostgreSQL). */
  sql: SqlDb;
  /** This process's identity in the shared database: it owns the calls and recordings it creates. */
  instanceId: string;
  /** Messages to the other control planes on the database (src/store/signals.ts). */
  signals: Signals;
  accounts: AccountRepo;
  apiKeys: ApiKeyRepo;
  trunks: TrunkRepo;
  numbers: NumberRepo;
  calls: CallRepo;
  recordings: RecordingRepo;
  carriers: CarrierRepo;
  registrations: RegistrationRepo;
  users: UserRepo;
  orgSettings: OrgSettingsRepo;
  speechSettings: SpeechSettingsRepo;
  voiceSettings: VoiceSettingsRepo;
  leads: LeadRepo;
  webhookSubscriptions: SubscriptionRepo;
  conferences: ConferenceRepo;
  instances: InstanceRepo;
  queues: QueueRepo;
  agents: AgentRepo;
  dispositions: DispositionRepo;
  scheduledCallbacks: CallbackRepo;
  leadCampaigns: LeadCampaignRepo;
  /** Ends the database connections (and PostgreSQL's cache listener). */
  close(): Promise<void>;
}


/** SQLite in the data dir: what a store opens when no PostgreSQL URL is configured. */
const SQLITE: Config['database'] = { url: null, poolSize: 1 };

/**
 * The store on the configured database: the SQLite file in `dataDir`, or PostgreSQL when `database.url` names one
 * (docs/postgresql.md), migrated before it is returned. Read caches learn of other processes' writes through
 * SQLite's data_version, or through LISTEN/NOTIFY on a connection of their own.
 */
export async function openStore(dataDir: string, clock: Clock, database: Config['database'] = SQLITE): Promise<Store> {
  const sql = await openDatabase({ dataDir, database });
  const instanceId = randomLowerAlnum(20);
  const listener = sql instanceof SqliteDb ? null : new PostgresListener({ url: database.url!, self: instanceId });
  const caches = listener ?? new SqliteDataVersion((sql as SqliteDb).raw);
  const calls = new CallRepo(sql, clock, instanceId);
  return {
    sql, instanceId, signals: listener ?? noSignals,
    accounts: new AccountRepo(sql, clock, caches),
    apiKeys: new ApiKeyRepo(sql, clock, caches),
    trunks: new TrunkRepo(sql, clock, caches),
    numbers: new NumberRepo(sql, clock),
    calls,
    recordings: new RecordingRepo(sql, clock, instanceId),
    carriers: new CarrierRepo(sql, clock, caches),
    registrations: new RegistrationRepo(sql, clock),
    users: new UserRepo(sql, clock),
    orgSettings: new OrgSettingsRepo(sql, clock, caches),
    speechSettings: new SpeechSettingsRepo(sql, clock),
    voiceSettings: new VoiceSettingsRepo(sql, clock, caches),
    leads: new LeadRepo(sql, clock),
    webhookSubscriptions: new SubscriptionRepo(sql, clock),
    conferences: new ConferenceRepo(sql, clock),
    instances: new InstanceRepo(sql, clock),
    queues: new QueueRepo(sql, clock),
    agents: new AgentRepo(sql, clock),
    dispositions: new DispositionRepo(sql, clock),
    scheduledCallbacks: new CallbackRepo(sql, clock, instanceId),
    leadCampaigns: new LeadCampaignRepo(sql, clock),
    close: async () => {
      await calls.timelineFlushed();
      await listener?.close();
      await sql.close();
    },
  };
}
