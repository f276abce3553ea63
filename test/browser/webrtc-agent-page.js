// Runs in the page (bundled with JsSIP by webrtc-agent.ts): one JsSIP user agent that registers, takes a call
// when told to, and measures what it hears. Plain JavaScript: it is browser code, outside the Node type check.
import JsSIP from 'jssip';
import { toneShare } from '../helpers/tone.ts';

/**
 * Tone measurement (agentMeasure): every 20 ms the latest 20 ms of what the agent hears is checked for each tone; the
 * windows counted start at the first of three in a row that carry them all (before that: prompts, silence).
 */
const tones = { hz: [], run: 0, windows: 0, heard: {} };
window.agentMeasure = (hz) => { Object.assign(tones, { hz, run: 0, windows: 0, heard: Object.fromEntries(hz.map((f) => [f, 0])) }); };
window.agentToneWindows = () => ({ windows: tones.windows, heard: Object.fromEntries(tones.hz.map((f) => [f, tones.windows ? tones.heard[f] / tones.windows : 0])) });
const measureTones = (samples, rate) => {
  if (tones.hz.length === 0) return;
  const window = samples.subarray(samples.length - Math.round(rate / 50));
  const carried = tones.hz.filter((f) => toneShare(window, f, rate) > 0.2);
  if (tones.run < 3) {
    tones.run = carried.length === tones.hz.length ? tones.run + 1 : 0;
    if (tones.run < 3) return;
  }
  tones.windows++;
  for (const f of carried) tones.heard[f]++;
};

/**
 * Measures a remote stream into `agent.peak` / `agent.audibleAt` (and the tones) until `over()` says its call ended.
 * Each listener watches its own call: `agent.ended` is reset by the test for the next call, and a listener that
 * missed that moment would go on feeding the dead stream's silence into the tone count, so the next call's tones
 * never ran three windows in a row (a CI run: "agent hears caller: 0 packets").
 */
const listen = (stream, agent, over) => {
  // Chromium only pulls a remote WebRTC stream through WebAudio while a media element also plays it.
  const sink = new Audio();
  sink.srcObject = stream;
  sink.muted = true;
  void sink.play();
  const ctx = new AudioContext();
  void ctx.resume();
  const analyser = ctx.createAnalyser();
  ctx.createMediaStreamSource(stream).connect(analyser);
  const samples = new Float32Array(analyser.fftSize);
  const timer = setInterval(() => {
    if (over()) {
      clearInterval(timer);
      sink.srcObject = null;
      void ctx.close();
      return;
    }
    analyser.getFloatTimeDomainData(samples);
    let peak = 0;
    for (const s of samples) peak = Math.max(peak, Math.abs(s));
    agent.peak = Math.max(agent.peak, peak);
    if (peak > 0.05 && agent.audibleAt === null) agent.audibleAt = Date.now();
    measureTones(samples, ctx.sampleRate);
  }, 20);
};

const newAgent = () => ({ confirmed: false, registered: false, registrationFailed: null, incoming: null, ended: null, peak: 0, audibleAt: null });

/** For a page that runs its own JsSIP (the dashboard snippet): measures whatever stream `element` is given. */
window.hearElement = (element) => {
  const agent = newAgent();
  window.agent = agent;
  const poll = setInterval(() => {
    if (!element.srcObject) return;
    clearInterval(poll);
    listen(element.srcObject, agent, () => agent.ended !== null);
  }, 20);
};

window.startAgent = (opts) => {
  const agent = newAgent();
  window.agent = agent;
  let session = null;

  const ua = new JsSIP.UA({
    sockets: [new JsSIP.WebSocketInterface(opts.wsUrl)], uri: opts.uri, password: opts.password,
    register: true, session_timers: false,
  });
  ua.on('registered', () => { agent.registered = true; });
  ua.on('registrationFailed', (e) => { agent.registrationFailed = e.cause; });
  const follow = (s) => {
    session = s;
    let over = false;
    const hear = (pc) => pc.addEventListener('track', (ev) => listen(ev.streams[0] ?? new MediaStream([ev.track]), agent, () => over));
    // A call the agent places has its peer connection already (ua.call() made it); an incoming one gets it on answer.
    if (s.connection) hear(s.connection);
    else s.on('peerconnection', ({ peerconnection }) => hear(peerconnection));
    s.on('confirmed', () => { agent.confirmed = true; });
    s.on('ended', (x) => { over = true; agent.ended = x.cause; });
    s.on('failed', (x) => { over = true; agent.ended = x.cause; });
  };
  ua.on('newRTCSession', (e) => {
    if (e.originator !== 'remote') return;
    agent.incoming = { from: e.session.remote_identity.uri.toString(), hasOffer: Boolean(e.request.body) };
    follow(e.session);
  });
  // A late-offer INVITE has no audio section to follow: JsSIP asks for the microphone only when told the
  // offer it makes must receive audio.
  window.agentAnswer = () => session?.answer({
    mediaConstraints: { audio: true, video: false }, rtcOfferConstraints: { offerToReceiveAudio: true }, pcConfig: { iceServers: [] },
  });
  window.agentHangup = () => session?.terminate();
  window.agentCall = (target) => {
    follow(ua.call(target, { mediaConstraints: { audio: true, video: false }, pcConfig: { iceServers: [] } }));
  };
  /** The addresses media flows between: the selected ICE candidate pair, as the browser sees it. */
  window.agentMediaPath = async () => {
    const stats = await session.connection.getStats();
    let pair = null;
    stats.forEach((s) => { if (s.type === 'transport' && s.selectedCandidatePairId) pair = stats.get(s.selectedCandidatePairId); });
    if (!pair) return null;
    const local = stats.get(pair.localCandidateId);
    const remote = stats.get(pair.remoteCandidateId);
    return { local: local.address, remote: remote.address, protocol: local.protocol };
  };
  ua.start();
};
