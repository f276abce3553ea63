/** How the platform's own phrases (IVR, voicemail, queue, errors) are spoken: one voice, so each renders once. */
export const PLATFORM_VOICE = { voice: 'default', language: 'en-US' } as const;
