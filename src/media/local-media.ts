/**
 * Audio the control plane has already fetched (through the media policy) into a local file. Engines play only
 * these: a media server never fetches a customer URL itself.
 */
export interface LocalMedia {
  /** Absolute path of a WAV or MP3 file the media server can read. */
  file: string;
  /** Where it came from (the customer's URL), for transcripts and logs. */
  source: string;
}
