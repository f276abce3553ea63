import type { Logger } from 'pino';
import type { EnginePort, TrunkCredentials } from '../engine/port.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { randomLowerAlnum, randomToken } from '../crypto/tokens.js';
import type { Account } from '../store/accounts.js';
import type { Transport, Trunk, TrunkRepo, TrunkSettings } from '../store/trunks.js';
import type { FieldErrors } from '../field-errors.js';
import type { CustomerUrlRule } from '../net/customer-url.js';
import { trunkSettingsProblems } from './settings-rules.js';

export const TRUNK_SETTING_DEFAULTS: TrunkSettings = {
  label: null,
  client_ref: null,
  sip_domain: null,
  voice_webhook_url: null,
  voice_webhook_method: 'POST',
  voice_fallback_url: null,
  voice_fallback_method: 'POST',
  voice_refer_url: null,
  voice_refer_method: 'POST',
  cli_lookup_url: null,
  cli_lookup_method: 'POST',
  default_caller_id: null,
  status_callback_url: null,
  status_callback_events: 'completed',
  hangup_url: null,
  dual_channel_recording: false,
  allowed_caller_ids: null,
};

export class TrunkRevokedError extends Error {
  constructor() { super('trunk is revoked'); }
}

/** Settings that pass the schema but not the rules (docs/security.md, "Input rules"); keyed by field. */
export class TrunkSettingsError extends Error {
  constructor(readonly errors: FieldErrors) { super('invalid trunk settings'); }
}

/** Trunk lifecycle: creation with generated SIP credentials, provisioning on the engine, updates, revocation. */
export class TrunkService {
  readonly #inFlight = new Set<Promise<void>>();

  constructor(
    private readonly repo: TrunkRepo,
    private readonly engine: EnginePort,
    private readonly secrets: SecretBox,
    private readonly log: Logger,
    private readonly urls: CustomerUrlRule,
  ) {
    // The SIP layer asks at each login (several control planes: a trunk may change through another one); reads come
    // from the trunks' read cache, which learns of other nodes' writes (docs/postgresql.md).
    engine.lookUpTrunksWith?.(async (endpointName) => {
      const trunk = await repo.getByEndpointName(endpointName);
      return trunk?.status === 'active' ? this.#credentials(trunk) : null;
    });
  }

  async create(account: Account, transport: Transport, settings: Partial<TrunkSettings>): Promise<Trunk> {
    this.#check(settings);
    const password = randomToken(24);
    const trunk = await this.repo.create({
      accountId: account.id,
      capacity: account.trunkCapacity,
      endpointName: `tk-${randomLowerAlnum(12)}`,
      sipPasswordSealed: this.secrets.seal(password),
      transport,
      settings: { ...TRUNK_SETTING_DEFAULTS, ...settings },
    });
    this.#provision(trunk);
    return trunk;
  }

  /** Revoked trunks are frozen: their history is kept as it was when revoked. */
  async update(trunk: Trunk, changes: Partial<TrunkSettings>): Promise<Trunk> {
    if (trunk.status === 'revoked') throw new TrunkRevokedError();
    this.#check(changes);
    return this.repo.updateSettings(trunk.id, changes);
  }

  #check(settings: Partial<TrunkSettings>): void {
    const problems = trunkSettingsProblems(settings, this.urls);
    if (problems) throw new TrunkSettingsError(problems);
  }

  async revoke(trunk: Trunk): Promise<void> {
    if (!await this.repo.transition(trunk.id, ['pending', 'active', 'suspended'], 'revoked')) return;
    await this.engine.deprovisionTrunk(trunk.endpoint_name);
  }

  password(trunk: Trunk): string | null {
    return this.secrets.open(trunk.sipPasswordSealed);
  }

  /**
   * At start the engine knows no credentials: active trunks are handed to it again, and trunks whose
   * provisioning never completed (a crash mid-way) are provisioned now.
   */
  async provisionOnStart(): Promise<void> {
    for (const trunk of [...await this.repo.listByStatus('active'), ...await this.repo.listByStatus('pending')]) this.#provision(trunk);
  }

  /** Resolves when every provisioning started so far has finished (tests, graceful shutdown). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #credentials(trunk: Trunk): TrunkCredentials {
    return { endpointName: trunk.endpoint_name, password: this.password(trunk), transport: trunk.transport };
  }

  #provision(trunk: Trunk): void {
    const job = this.engine
      .provisionTrunk(this.#credentials(trunk))
      .then(async () => {
        if (await this.repo.transition(trunk.id, ['pending'], 'active')) return;
        // Revoked or suspended while the engine was busy: take back the credentials it just accepted.
        const now = await this.repo.getById(trunk.id);
        if (now && (now.status === 'revoked' || now.status === 'suspended')) await this.engine.deprovisionTrunk(trunk.endpoint_name);
      })
      .catch((err: unknown) => {
        this.log.warn({ trunkId: trunk.id, err }, 'trunk provisioning failed; trunk stays pending');
      })
      .finally(() => this.#inFlight.delete(job));
    this.#inFlight.add(job);
  }
}
