// Ending SIP dialogs that may already be over: the far end hung up, or the drachtio connection closed with them.
import type Srf from 'drachtio-srf';

/** drachtio-srf's dialogs say whether they are still up (not in its typings). */
export const isUp = (dialog: Srf.Dialog | null | undefined): dialog is Srf.Dialog =>
  (dialog as { connected?: boolean } | null | undefined)?.connected === true;

/** drachtio-server's id of a dialog (Call-ID and tag; not in drachtio-srf's typings). */
export const dialogIdOf = (dialog: Srf.Dialog): string => (dialog as unknown as { id: string }).id;

/** Sends BYE; resolves on its answer, or at once when it cannot be sent (dialog over, drachtio connection closed). */
export function bye(dialog: Srf.Dialog): Promise<void> {
  return new Promise<void>((resolve) => {
    try { dialog.destroy(undefined, () => resolve()); } catch { resolve(); }
  });
}

const ORPHAN_BYE_WAIT_MS = 2_000;

/**
 * BYE inside a dialog drachtio-server holds but this process never knew (a dead predecessor's): addressed by
 * drachtio's dialog id alone. Resolves on the far end's answer, or after ORPHAN_BYE_WAIT_MS (drachtio retries).
 */
export async function byeInside(srf: Srf, dialogId: string): Promise<void> {
  const sent = await (srf.request as unknown as (opts: object) => Promise<Srf.SrfRequest>)({ uri: 'sip:placeholder', method: 'BYE', stackDialogId: dialogId });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ORPHAN_BYE_WAIT_MS);
    sent.on('response', () => { clearTimeout(timer); resolve(); });
  });
}
