// An outbound API call to a far end on the real engines: sipp answers as the carrier route's peer, and the test's
// own RTP socket is its voice (`audio`, from the answer on) and its ears. Used where a test needs both what the far
// end says and what it hears: speech gathers, answering-machine detection, vendor voices.
import type { Test } from 'tap';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../../helpers/server-process.js';
import { until } from '../../../helpers/waits.js';
import { udpPortTaken, type RealDriver } from '../../../engine-suite/real-driver.js';
import { DID } from '../../../engine-suite/flows.js';
import { mediaAddress, rtpFarEnd, runFarEnd, type RtpFarEnd } from './far-end.js';
import { carrierAtAddress } from '../../../../src/store/carriers.js';

export interface FarEndCall { sid: string; media: RtpFarEnd }

/** Places `POST /api/calls` with `body` (from the DID to `party`) and returns once the far end answered and talks. */
export async function callFarEnd(t: Test, d: RealDriver, party: { number: string; name: string }, audio: Float32Array, body: Record<string, unknown>): Promise<FarEndCall> {
  const mediaFile = path.join(mkdtempSync(path.join(d.scratch, `${party.name}-`)), 'media');
  const media = await rtpFarEnd(audio, 20);
  const port = await freePort();
  await d.h.store.carriers.add(party.name, carrierAtAddress('127.0.0.1', port, party.number));
  const sipp = runFarEnd(port, { kind: 'answer', rtpPort: media.port, ringMs: 100, mediaFile }, d.scratch, 60_000);
  t.teardown(() => { sipp.kill(); media.close(); });
  await udpPortTaken(port);
  const res = await d.h.request('POST', '/api/calls', { body: { from: DID, to: party.number, ...body } });
  t.equal(res.status, 201, JSON.stringify(res.body));
  // The far end talks from its answer on, to where the platform's SDP said.
  await until(() => `the far end answered (sipp: ${sipp.output().slice(-400)})`, 15_000, () => mediaAddress(mediaFile) !== null, 5);
  media.talkTo(mediaAddress(mediaFile)!);
  return { sid: res.body.sid as string, media };
}
