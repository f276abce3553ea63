// fetch for tests that talk to the platform they started: one connection per request, closed after it.
// With keep-alive, a request sent on an idle connection just as the server's keep-alive timeout (5 s) closed it
// is reset (ECONNRESET) before any answer; on a loaded machine the client's own timer, meant to drop such a
// connection a second earlier, fires late. A loopback connect costs well under a millisecond.
import { Agent, fetch } from 'undici';

const oneRequestPerConnection = new Agent({ pipelining: 0 });

export async function freshFetch(url: string, init: { method?: string; headers?: Record<string, string>; body?: string; redirect?: 'manual' | 'follow' } = {}) {
  const res = await fetch(url, { ...init, dispatcher: oneRequestPerConnection });
  // undici's Headers and Response are the ones Node's global fetch is built from.
  return res as unknown as Response;
}
