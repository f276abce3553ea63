import { EXPECT, isDtmfKeySet, isUrlReference } from '../values.js';
import { compact, leafVerb } from './define.js';

/** Voicemail-style recording, transcribed on request (transcribe, transcribeCallback). */
export const record = leafVerb('Record', undefined, (f) => {
  const verb = compact({
    verb: 'record' as const,
    action: f.string('action', { check: isUrlReference, expect: EXPECT.urlRef }),
    method: f.method(),
    maxLength: f.int('maxLength', 1, 14400, 3600),
    timeout: f.int('timeout', 1, 600, 5),
    finishOnKey:
      f.string('finishOnKey', { allowEmpty: true, check: isDtmfKeySet, expect: 'distinct keys from 0-9, * and #, or ""' }) ??
      '1234567890*#',
    playBeep: f.bool('playBeep', true),
    recordingStatusCallback: f.string('recordingStatusCallback', { check: isUrlReference, expect: EXPECT.urlRef }),
    recordingStatusCallbackMethod: f.method('recordingStatusCallbackMethod'),
    transcribe: f.bool('transcribe', false),
    transcribeCallback: f.string('transcribeCallback', { check: isUrlReference, expect: EXPECT.urlRef }),
  });
  if (verb.transcribeCallback !== undefined) verb.transcribe = true;
  return verb;
});
