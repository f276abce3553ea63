export { SandboxEngine, partyAddress, type SimulateInboundOptions } from './engine.js';
export type { CallerScript, InCallScript, PartyScript, SimulatedCall } from './party.js';
export type { FarEndAudio } from './far-end-audio.js';
export type { TranscriptEntry, TranscriptEvent, TranscriptListener } from './transcript.js';
export { decodeWav, encodeWav, readWav, readWavInfo, wavInfo, writeWav, type WavAudio, type WavInfo } from '../../media/wav.js';
export * as mediaTiming from './media-timing.js';
