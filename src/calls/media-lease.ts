import type { LocalMedia } from '../engine/port.js';
import type { MediaLease } from '../media/media-cache.js';
import type { CallSession } from './session.js';

/**
 * A playable local copy of a markup media URL for this call. A refused or failed fetch is not an application
 * error: it is logged and shown in the timeline, and the verb that wanted it is skipped (the call goes on).
 */
export async function leaseMedia(session: CallSession, url: string): Promise<MediaLease | null> {
  const { media, clock } = session.services;
  const started = clock.now();
  const result = await media.acquire(url);
  if (!result.ok) {
    session.timeline('media-skipped', { url, code: result.code, reason: result.reason });
    session.log.warn({ url, code: result.code, reason: result.reason }, 'media not played');
    return null;
  }
  session.timeline('media-ready', { url, via: result.lease.via, latency_ms: clock.now() - started });
  return result.lease;
}

export function localMedia(lease: MediaLease): LocalMedia {
  return { file: lease.file, source: lease.url };
}
