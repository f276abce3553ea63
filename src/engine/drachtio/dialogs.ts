// Ending SIP dialogs that may already be over: the far end hung up, or the drachtio connection closed with them.
import type Srf from 'drachtio-srf';

/** drachtio-srf's dialogs say whether they are still up (not in its typings). */
export const isUp = (dialog: Srf.Dialog | null | undefined): dialog is Srf.Dialog =>
  (dialog as { connected?: boolean } | null | undefined)?.connected === true;

/** Sends BYE; resolves on its answer, or at once when it cannot be sent (dialog over, drachtio connection closed). */
export function bye(dialog: Srf.Dialog): Promise<void> {
  return new Promise<void>((resolve) => {
    try { dialog.destroy(undefined, () => resolve()); } catch { resolve(); }
  });
}
