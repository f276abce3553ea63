// A harness for /v1 tests: the app trusts 127.0.0.1 as its TLS-terminating proxy (so requests marked
// X-Forwarded-Proto: https count as HTTPS), loopback webhook targets are allowed, and helpers set up an org.
import { startHarness, type Harness } from '../../helpers/harness.js';
import type { Clock } from '../../../src/clock.js';

export interface PreviewHarness extends Harness {
  /** Like request, but over "https" (through the trusted proxy). */
  v1: Harness['request'];
  /** An account with an API key whose org allows webhooks to 127.0.0.1. */
  org(): Promise<{ id: number; key: string }>;
}

export async function startPreviewHarness(t: { teardown(fn: () => unknown): void }, opts: { env?: Record<string, string>; clock?: Clock; fakeClock?: boolean } = {}): Promise<PreviewHarness> {
  const h = await startHarness(t, {
    ...opts,
    env: { RINGBASE_TRUSTED_PROXIES: '127.0.0.1', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', ...opts.env },
  });
  return Object.assign(h, {
    v1: ((method, urlPath, o = {}) => h.request(method, urlPath, { ...o, headers: { 'x-forwarded-proto': 'https', ...o.headers } })) as Harness['request'],
    async org() {
      const a = await h.account();
      await h.store.orgSettings.allowHost(a.id, '127.0.0.1');
      return a;
    },
  });
}
