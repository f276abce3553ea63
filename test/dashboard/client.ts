// A cookie-keeping HTTP client for dashboard pages, to test them without a browser.
import type { Harness } from '../helpers/harness.js';
import { UserService } from '../../src/users/service.js';

export interface Page { status: number; headers: Headers; text: string; location: string | null; setCookies: string[] }

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string, private readonly fetchImpl: typeof fetch = fetch) {}

  async request(method: string, path: string, form?: Record<string, string>): Promise<Page> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await this.fetchImpl(this.base + path, { method, headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: 'manual' });
    const setCookies = res.headers.getSetCookie();
    for (const c of setCookies) {
      const [pair] = c.split(';');
      const [name, ...rest] = pair!.split('=');
      const value = rest.join('=');
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value);
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location'), setCookies };
  }

  get(path: string) { return this.request('GET', path); }
  post(path: string, form: Record<string, string> = {}) { return this.request('POST', path, form); }

  /** The CSRF token of the forms on a page. */
  static csrfOf(page: Page): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(page.text);
    if (!m) throw new Error(`no CSRF field on the page (status ${page.status})`);
    return m[1]!;
  }

  /** Posts a form the way a browser would: with the token from the page it came from. */
  async submit(pagePath: string, action: string, form: Record<string, string> = {}): Promise<Page> {
    const page = await this.get(pagePath);
    return this.post(action, { _csrf: DashboardClient.csrfOf(page), ...form });
  }

  async signIn(email: string, password: string): Promise<Page> {
    return this.submit('/dashboard/login', '/dashboard/login', { email, password });
  }
}

export const PASSWORD = 'correct horse battery';

/** An account with trunk access, a signed-up user on it and an API key. */
export async function accountWithUser(h: Harness, email: string, opts: { trunking?: boolean } = {}) {
  const account = await h.account({ trunking: opts.trunking ?? true });
  const users = new UserService(h.store.users, h.clock);
  const { user } = await users.create(account.id, email);
  await users.setPassword(user.id, PASSWORD);
  return { ...account, user, users };
}
