// Ringback as each country's callers know it (ITU-T E.180 cadences, in FreeSWITCH's tone_stream notation as its own
// vars.xml has them), for every name markup's ringTone accepts.
import type { RingTone } from '../../markup/ring-tones.js';

/** What plays `tone`'s ringback on a channel, looped until it is broken. */
export const ringbackFile = (tone: RingTone) => `tone_stream://${RING_TONES[tone]};loops=-1`;

export const RING_TONES: Record<RingTone, string> = {
  us: '%(2000,4000,440,480)',
  ca: '%(2000,4000,440,480)',
  uk: '%(400,200,400,450);%(400,2000,400,450)',
  ie: '%(400,200,400,450);%(400,2000,400,450)',
  au: '%(400,200,383,417);%(400,2000,383,417)',
  nz: '%(400,200,400,450);%(400,2000,400,450)',
  de: '%(1000,4000,425)',
  at: '%(1000,5000,420)',
  ch: '%(1000,4000,425)',
  nl: '%(1000,4000,425)',
  be: '%(1000,3000,425)',
  fr: '%(1500,3500,440)',
  it: '%(1000,4000,425)',
  es: '%(1500,3000,425)',
  pt: '%(1000,5000,425)',
  se: '%(1000,5000,425)',
  no: '%(1000,4000,425)',
  dk: '%(1000,4000,425)',
  fi: '%(1000,4000,425)',
  pl: '%(1000,4000,425)',
  in: '%(400,200,400,450);%(400,2000,400,450)',
  jp: '%(1000,2000,400)',
  br: '%(1000,4000,425)',
  mx: '%(1000,4000,425)',
  za: '%(400,200,400,450);%(400,2000,400,450)',
};

