// Media streams in the sandbox: the far end "speaks" a 440 Hz tone (the inbound track), or what its script says it
// sounds like (far-end-audio.ts), and the platform's side a 660 Hz one (outbound, forks only), as in sandbox
// recordings; both are framed at 20 ms on the injected clock.
// What a peer sends is what the far end hears: each run of it lands in the transcript with a digest of its bytes.
import { createHash } from 'node:crypto';
import { encodeUlaw, ULAW_SILENCE } from '../../media/mulaw.js';
import { PacedAudioTap } from '../paced-tap.js';
import { AUDIO_FRAME_BYTES, AUDIO_FRAME_MS, type AudioTap, type AudioTapOptions, type AudioTrack } from '../port.js';
import { SAMPLE_RATE } from './audio.js';
import type { Line } from './line.js';
import { farEndFrame } from './far-end-audio.js';

const TRACK_HZ: Record<AudioTrack, number> = { inbound: 440, outbound: 660 };
const LEVEL = 0.3;
const SILENT_FRAME = Buffer.alloc(AUDIO_FRAME_BYTES, ULAW_SILENCE);

/** 20 ms frame number `n` of a continuous tone. */
function toneFrame(hz: number, n: number): Buffer {
  const samples = new Float32Array(AUDIO_FRAME_BYTES);
  const start = n * AUDIO_FRAME_BYTES;
  for (let i = 0; i < samples.length; i++) samples[i] = LEVEL * Math.sin((2 * Math.PI * hz * (start + i)) / SAMPLE_RATE);
  return encodeUlaw(samples);
}

export function openSandboxAudio(line: Line, opts: AudioTapOptions): AudioTap {
  const heard: Buffer[] = [];
  const flushHeard = () => {
    if (heard.length === 0) return;
    const sha1 = createHash('sha1').update(Buffer.concat(heard)).digest('hex');
    line.transcript.add({ type: 'heard-stream', frames: heard.length, sha1 });
    heard.length = 0;
  };
  let stopEnd = () => {};
  const tap: PacedAudioTap = new PacedAudioTap(opts.mode, line.clock, {
    play(frame) {
      heard.push(frame);
      // The end of a run: nothing more queued behind this frame.
      if (tap.queuedFrames === 0) flushHeard();
    },
    cleared(frames) {
      flushHeard();
      line.transcript.add({ type: 'stream-cleared', frames });
    },
    async release() {
      stopEnd();
      flushHeard();
      line.transcript.add({ type: 'audio-closed', mode: opts.mode });
    },
  });
  line.transcript.add({ type: 'audio-opened', mode: opts.mode });
  const tracks: AudioTrack[] = opts.mode === 'fork' && !opts.callerOnly ? ['inbound', 'outbound'] : ['inbound'];
  // What the far end sounds like: its words while it says some; else its scripted audio; else, to a listener
  // waiting for it to speak, silence (a person listening to the prompts), and to a media stream a steady tone.
  const farEnd = (n: number): Buffer => line.speech.frame()
    ?? (line.audio ? encodeUlaw(farEndFrame(line.audio, n * AUDIO_FRAME_BYTES, AUDIO_FRAME_BYTES)) : opts.callerOnly ? SILENT_FRAME : toneFrame(TRACK_HZ.inbound, n));
  let n = 0;
  const next = () => {
    if (tap.isClosed) return;
    for (const track of tracks) {
      tap.deliver({ track, payload: track === 'inbound' ? farEnd(n) : toneFrame(TRACK_HZ[track], n) });
    }
    n++;
    line.schedule(AUDIO_FRAME_MS, next);
  };
  line.schedule(AUDIO_FRAME_MS, next);
  stopEnd = line.onEnd(() => { void tap.close(); });
  if (opts.callerOnly) line.listening();
  return tap;
}
