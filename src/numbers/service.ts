import type { NumberRepo, PhoneNumber } from './repo.js';
import { applySettings, DEFAULT_NUMBER_SETTINGS, E164 } from './settings.js';
import type { FieldErrors } from '../field-errors.js';
import type { CustomerUrlRule } from '../net/customer-url.js';

export class NumberError extends Error {
  constructor(message: string, readonly errors: FieldErrors = {}) { super(message); }
}

/** The operator's pool and the account holder's numbers; shared by the CLI and the dashboard. */
export class NumberService {
  /** urls: the customer URL rule, which needs the dev flag (config.devAllowLocalTargets). */
  constructor(private readonly repo: NumberRepo, private readonly urls: CustomerUrlRule) {}

  async add(e164: string, accountId: number | null, patch: Record<string, unknown> = {}): Promise<PhoneNumber> {
    if (!E164.test(e164)) throw new NumberError(`"${e164}" is not an E.164 number such as +14155550100`, { number: ['Must be E.164.'] });
    const inPool = () => new NumberError(`${e164} is already in the pool`, { number: ['Already in the pool.'] });
    if (await this.repo.getByE164(e164)) throw inPool();
    const result = applySettings(DEFAULT_NUMBER_SETTINGS, patch, this.urls);
    if (!result.ok) throw new NumberError('invalid settings', result.errors);
    const added = await this.repo.add(e164, accountId, result.settings);
    if (!added) throw inPool();
    return added;
  }

  async find(e164: string): Promise<PhoneNumber> {
    const n = await this.repo.getByE164(e164);
    if (!n) throw new NumberError(`no number ${e164}`);
    return n;
  }

  /** For an account holder: the number only if it is theirs, so foreign numbers look nonexistent. */
  async findOwned(accountId: number, e164: string): Promise<PhoneNumber | undefined> {
    const n = await this.repo.getByE164(e164);
    return n && n.accountId === accountId ? n : undefined;
  }

  async claim(e164: string, accountId: number): Promise<PhoneNumber> {
    const n = await this.find(e164);
    if (n.accountId === accountId) return n;
    if (!await this.repo.claim(n.id, accountId)) throw new NumberError(`${e164} is already claimed`);
    return (await this.repo.getById(n.id))!;
  }

  async release(e164: string): Promise<PhoneNumber> {
    const n = await this.find(e164);
    await this.repo.release(n.id);
    return (await this.repo.getById(n.id))!;
  }

  async update(n: PhoneNumber, patch: unknown): Promise<PhoneNumber> {
    const result = applySettings(n.settings, patch, this.urls);
    if (!result.ok) throw new NumberError('invalid settings', result.errors);
    return this.repo.saveSettings(n.id, result.settings);
  }
}
