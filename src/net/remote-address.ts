import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/**
 * undici's request API never exposes the socket a request went out on, yet delivery logs want
 * the peer address actually used. Its diagnostics channels do carry it: `undici:request:create`
 * fires synchronously inside dispatch (so we can claim the request object we just caused), and
 * `undici:client:sendHeaders` later pairs that object with its socket.
 */
export interface AddressCapture { remoteAddress: string | null }

let claimant: AddressCapture | null = null;
const captures = new WeakMap<object, AddressCapture>();

diagnostics.subscribe('undici:request:create', (message) => {
  if (!claimant) return;
  captures.set((message as { request: object }).request, claimant);
  claimant = null;
});

diagnostics.subscribe('undici:client:sendHeaders', (message) => {
  const { request, socket } = message as { request: object; socket: Socket };
  const capture = captures.get(request);
  if (capture) capture.remoteAddress = socket.remoteAddress ?? null;
});

/** Runs `dispatch` (which must start exactly one undici request synchronously) and tracks its peer. */
export function captureRemoteAddress<T>(dispatch: () => T): { result: T; capture: AddressCapture } {
  const capture: AddressCapture = { remoteAddress: null };
  claimant = capture;
  try {
    return { result: dispatch(), capture };
  } finally {
    claimant = null;
  }
}
