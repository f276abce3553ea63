// Which fetched bytes the media server is allowed to play. FreeSWITCH picks its file reader by extension, so
// the format is decided here from the bytes themselves, never from the URL or the origin's word alone.

export type AudioFormat = 'wav' | 'mp3';

const AUDIO_TYPES: Record<string, AudioFormat | 'any'> = {
  'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/vnd.wave': 'wav',
  'audio/mpeg': 'mp3', 'audio/mp3': 'mp3', 'audio/x-mpeg': 'mp3', 'audio/mpeg3': 'mp3',
  // Generic types say nothing either way; the bytes decide.
  'application/octet-stream': 'any', 'binary/octet-stream': 'any',
};

export type FormatVerdict = { ok: true; format: AudioFormat } | { ok: false; reason: string };

function sniff(bytes: Buffer): AudioFormat | null {
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WAVE') return 'wav';
  if (bytes.length >= 3 && bytes.toString('latin1', 0, 3) === 'ID3') return 'mp3';
  // An MPEG audio frame header starts with 11 set bits (frame sync).
  if (bytes.length >= 2 && bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0) return 'mp3';
  return null;
}

/** The format to store the body as, or why it is refused (HTML error pages, JSON, images, unknown audio). */
export function audioFormatOf(contentType: string | undefined, body: Buffer): FormatVerdict {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const declared = AUDIO_TYPES[type];
  if (type !== '' && declared === undefined) return { ok: false, reason: `content type ${type} is not playable audio (use WAV or MP3)` };
  const found = sniff(body);
  if (!found) return { ok: false, reason: 'the body is not a WAV or MP3 file' };
  if (declared !== undefined && declared !== 'any' && declared !== found) {
    return { ok: false, reason: `content type ${type} does not match the body, which is ${found.toUpperCase()}` };
  }
  return { ok: true, format: found };
}
