// The call-flow suite's driver for real drachtio-server + FreeSWITCH: one pair of engines per test file
// (started on first use), a fresh app per test, sipp as the caller and as dialled parties, and an RTP
// recorder standing in for the caller's ear.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import type { CallerPlan, EngineDriver, PartyPlan, PlacedCall } from './driver.js';
import { startRealHarness } from './real-harness.js';
import { dtmfTone, pcapPayload, pcapRtp, rtpRecorder, type RtpRecorder } from './real-rtp.js';
import { hangUpCaller, keyPcap, keySchedule, PCAP_DIR, runCaller, runParty, runRegister, type CallerRun, type SippRun } from './real-sipp.js';
import { startEngines, PARTY_PORTS, type EngineBinaries, type RunningEngines } from '../helpers/engines.js';
import { freePort } from '../helpers/server-process.js';
import type { SimulatedCall } from '../../src/engine/sandbox/index.js';
import type { DrachtioEngine } from '../../src/engine/drachtio/index.js';
import { carrierAtAddress } from '../../src/store/carriers.js';

export interface RealPlacedCall extends PlacedCall {
  /** What the caller received, measured on its RTP: peak level 0..1 and packet count. */
  audio(): { peak: number; packets: number; firstAudibleAt: number | null };
  /** What the caller heard, decoded (8 kHz samples). */
  samples(): Float32Array;
  answered: Promise<boolean>;
  /** The caller's RTP socket: what it hears, and what the test makes it say (`sendAudio`). */
  rtp: RtpRecorder;
  /** Resolves true once the caller hears audio above silence. */
  audible: Promise<boolean>;
  sipp: CallerRun;
}

/**
 * `inband`: the caller's SDP has no telephone-event, so its keys are DTMF tones in its audio. `referTo`: once
 * answered, the caller sends REFER there, expects 603 Decline and hangs up (its exit code says whether it got it).
 * `referredTo`: the caller expects the platform's REFER naming it (a regular expression), accepts it (202) and
 * reports the transfer done (NOTIFY with a 200 sipfrag); its exit code says whether the Refer-To matched.
 */
export type RealCallerPlan = CallerPlan & { inband?: boolean; referTo?: string; referredTo?: string };

export type RealDriver = Omit<EngineDriver, 'inbound' | 'fromTrunk'> & {
  engines: RunningEngines;
  engine: DrachtioEngine;
  /** drachtio's SIP address (host:port) and a scratch dir for scenario files: for extra sipp runs. */
  sipTarget: string;
  scratch: string;
  inbound(from: string, to: string, plan?: RealCallerPlan): Promise<RealPlacedCall>;
  fromTrunk(trunk: { endpointName: string; password: string }, from: string, to: string, plan?: CallerPlan): Promise<RealPlacedCall>;
};

/** Greetings before a recording starts (voicemail's is about 5 s in flite) are talked through. */
const GREETING_ALLOWANCE_MS = 7_000;
const speech = pcapPayload(path.join(PCAP_DIR, 'g711a.pcap'));

/** Resolves true once `heard` holds for what the caller received, false if sipp ends first. */
function hears(rtp: RtpRecorder, sipp: SippRun, heard: (rtp: RtpRecorder) => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const poll = setInterval(() => { if (heard(rtp)) { clearInterval(poll); resolve(true); } }, 10);
    void sipp.exited.then(() => { clearInterval(poll); resolve(heard(rtp)); });
  });
}

/** Resolves once something (sipp) listens on the UDP port, or after 3 s. Asks `ss`, so the probe never holds the port. */
export async function udpPortTaken(port: number): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline) {
    const listening = await new Promise<boolean>((resolve) => {
      execFile('ss', ['-Hlun', `sport = :${port}`], (err, out) => resolve(!err && out.trim() !== ''));
    });
    if (listening) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * One set of engines for a whole test file; `make` builds a fresh app and driver for each test, its environment
 * completed by `env` when given (several media servers, say).
 */
export function realDrivers(root: Test, bins: EngineBinaries): (t: Test, env?: (eng: RunningEngines) => Record<string, string>) => Promise<RealDriver> {
  let engines: Promise<RunningEngines> | null = null;
  const scratch = mkdtempSync(path.join(tmpdir(), 'ringbase-sipp-'));
  root.teardown(async () => {
    if (engines) {
      const eng = await engines;
      // RINGBASE_ENGINE_LOG=FILE keeps what drachtio and FreeSWITCH said (FreeSWITCH's log file: DTMF, RTP), for diagnosis.
      if (process.env.RINGBASE_ENGINE_LOG) {
        const { drachtio, freeswitch } = eng.logs();
        const fsLog = path.join(eng.dir, 'log', 'freeswitch.log');
        const fsFile = existsSync(fsLog) ? readFileSync(fsLog, 'utf8') : '';
        writeFileSync(process.env.RINGBASE_ENGINE_LOG, `=== drachtio\n${drachtio}\n=== freeswitch\n${freeswitch}\n${fsFile}`);
      }
      await eng.stop();
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  return async (t, env = () => ({})) => {
    engines ??= startEngines(bins);
    const eng = await engines;
    const running = new Set<SippRun>();
    const partyCalls = new Map<string, SimulatedCall[]>();
    t.teardown(() => { for (const r of running) r.kill(); });

    const h = await startRealHarness(t, { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_TRUSTED_PROXIES: '127.0.0.1', ...eng.env, ...env(eng) }, (engine) => ({
      activeLegs: () => engine.activeLegs(),
      partyCalls: (address: string) => partyCalls.get(address) ?? [],
    }));
    // DID calls come from the caller's sipp port; each scripted party is a carrier route for its number.
    const callerPort = await freePort();
    await h.store.carriers.add('test-carrier', carrierAtAddress('127.0.0.1', callerPort, null));
    const target = `127.0.0.1:${eng.drachtio.sipPort}`;

    const partiesReady = new Set<Promise<void>>();
    const place = async (from: string, to: string, plan: RealCallerPlan, auth?: { username: string; password: string }): Promise<RealPlacedCall> => {
      // A party scripted before the call must be listening before anything can dial it.
      await Promise.all([...partiesReady]);
      const rtp = await rtpRecorder();
      const localPort = auth ? await freePort() : callerPort;
      const sipp = await runCaller({ target, localPort, rtpPort: rtp.port, from, to, plan, scratch, inband: plan.inband, ...(auth ? { auth } : {}), ...(plan.referTo ? { referTo: plan.referTo } : {}), ...(plan.referredTo ? { referredTo: plan.referredTo } : {}) });
      running.add(sipp);
      const ended = sipp.exited.then((code) => { running.delete(sipp); rtp.close(); return code; });
      // Answered once any RTP arrives; "up" once the caller hears something (the platform is talking to it).
      const answered = hears(rtp, sipp, (r) => r.packets() > 0);
      const audible = hears(rtp, sipp, (r) => r.firstAudibleAt() !== null);
      const schedule = keySchedule(plan);
      void answered.then(async (up) => {
        if (!up) return;
        const start = Date.now();
        for (const { at, key } of schedule.keys) {
          await new Promise((r) => setTimeout(r, Math.max(0, start + at - Date.now())));
          await (plan.inband ? rtp.sendAudio(dtmfTone(key)) : rtp.sendKey(pcapRtp(keyPcap(key))));
        }
      });
      if (plan.speakMs) {
        // The caller cannot hear when recording starts (greetings, beeps come first): it talks through them.
        void answered.then(async (up) => {
          if (!up) return;
          await new Promise((r) => setTimeout(r, schedule.ms));
          await rtp.speak(plan.speakMs! + GREETING_ALLOWANCE_MS, speech);
        });
      }
      return {
        ended, sipp, answered, audible, hears: audible, rtp,
        endedAt: async () => {
          await ended;
          return sipp.byeReceivedAt() ?? Date.now();
        },
        heard: () => null,
        hangup: () => { void hangUpCaller(sipp, localPort); },
        audio: () => ({ peak: rtp.peak(), packets: rtp.packets(), firstAudibleAt: rtp.firstAudibleAt() }),
        samples: () => rtp.samples(),
      };
    };

    const partyPorts = new Map<string, number>();
    const answerOn = (port: number, plan: PartyPlan) => {
      const ready = runParty(port, plan, scratch).then((sipp) => {
        running.add(sipp);
        void sipp.exited.then(() => running.delete(sipp));
        return udpPortTaken(port);
      });
      partiesReady.add(ready);
      void ready.then(() => partiesReady.delete(ready));
      return ready;
    };
    return {
      name: 'drachtio', h, speed: 1, engines: eng, engine: h.realEngine, sipTarget: target, scratch,
      async inbound(from, to, plan = {}) {
        // Like a person picking up the phone, the suite acts on the call once the caller hears the platform
        // (or the call is over): "in progress" alone can come before any prompt is playing.
        const call = await place(from, to, plan);
        await Promise.race([call.audible, call.ended]);
        return call;
      },
      async fromTrunk(trunk, from, to, plan = {}) {
        const call = await place(from, to, plan, { username: trunk.endpointName, password: trunk.password });
        if (!(await call.answered)) {
          await call.ended;
          throw new Error(`trunk call refused: ${call.sipp.output().slice(-500)}`);
        }
        return call;
      },
      async party(address: string, plan: PartyPlan) {
        // Resolves once the route exists and the party's sipp listens: a call placed through the API right after
        // (not an inbound call, which waited for it) reached a party still starting on a loaded run, and never rang.
        const port = partyPorts.get(address) ?? PARTY_PORTS.from + Math.floor(Math.random() * PARTY_PORTS.count);
        partyPorts.set(address, port);
        if (!(await h.store.carriers.byName(`party-${port}`))) await h.store.carriers.add(`party-${port}`, carrierAtAddress('127.0.0.1', port, address));
        const calls = partyCalls.get(address) ?? [];
        partyCalls.set(address, calls);
        await answerOn(port, plan);
      },
      // A SIP phone: REGISTERs from its port with the trunk's credentials, then answers INVITEs on that port.
      async agentSeat(trunk, plan) {
        const port = await freePort();
        const reg = await runRegister(target, port, { username: trunk.username, password: trunk.password }, scratch);
        if ((await reg.exited) !== 0) throw new Error(`seat REGISTER refused: ${reg.output().slice(-500)}`);
        await answerOn(port, plan);
      },
    } as RealDriver;
  };
}
