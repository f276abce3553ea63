// MP3 prompts are decoded here, in the control plane: the media server's file readers (libsndfile) play WAV but
// not MP3, and one format on disk keeps every engine's playback path the same.
import { MPEGDecoder } from 'mpg123-decoder';
import { downmix, encodeWav } from './wav.js';

export type Transcoded = { ok: true; wav: Buffer } | { ok: false; reason: string };

/** An MP3 as a mono 16-bit WAV at its own sample rate; `maxBytes` bounds the decoded file (a small MP3 can be long). */
export async function mp3ToWav(mp3: Buffer, maxBytes: number): Promise<Transcoded> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const { channelData, samplesDecoded, sampleRate } = decoder.decode(mp3);
    if (samplesDecoded === 0 || channelData.length === 0) return { ok: false, reason: 'the MP3 holds no decodable audio' };
    if (44 + samplesDecoded * 2 > maxBytes) return { ok: false, reason: `the MP3 decodes to more than ${maxBytes} bytes of audio` };
    return { ok: true, wav: encodeWav({ sampleRate, channels: [downmix(channelData, samplesDecoded)] }) };
  } finally {
    decoder.free();
  }
}
