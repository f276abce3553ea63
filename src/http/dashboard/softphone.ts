// The agent console's softphone (an ES module served at /dashboard/assets/softphone.js): JsSIP, served beside it by
// Ringbase (./jssip.js: no Internet needed), registers the agent's wss seat with credentials fetched from the
// console (never in the page's HTML); it rings on an offered call, answers and hangs up from the page's buttons,
// and shows a level meter of what the agent hears. Its state is on #softphone's data-state for people and tests.
export const SOFTPHONE_JS = `
import JsSIP from './jssip.js';
const box = document.getElementById('softphone');
const say = (state, text) => { box.dataset.state = state; document.getElementById('phone-state').textContent = text; };
const buttons = { connect: 'phone-connect', answer: 'phone-answer', hangup: 'phone-hangup' };
const show = (...names) => { for (const [name, id] of Object.entries(buttons)) document.getElementById(id).hidden = !names.includes(name); };
let ua = null, session = null, meter = null;

function hear(pc) {
  pc.addEventListener('track', (e) => {
    const audio = document.getElementById('phone-audio');
    audio.srcObject = e.streams[0];
    const ctx = new AudioContext();
    const analyser = ctx.createAnalyser();
    ctx.createMediaStreamSource(e.streams[0]).connect(analyser);
    const data = new Float32Array(analyser.fftSize);
    clearInterval(meter);
    meter = setInterval(() => {
      analyser.getFloatTimeDomainData(data);
      const peak = data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      document.getElementById('phone-level').value = peak;
      if (peak > Number(box.dataset.peak || 0)) box.dataset.peak = String(peak);
    }, 50);
  });
}

document.getElementById('phone-connect').addEventListener('click', async () => {
  say('connecting', 'Connecting…');
  const r = await fetch(box.dataset.credentials, { method: 'POST', credentials: 'same-origin', body: new URLSearchParams({ _csrf: box.dataset.csrf }) });
  if (!r.ok) { say('failed', 'The seat could not be connected: ' + r.status); return; }
  const seat = await r.json();
  ua = new JsSIP.UA({ sockets: [new JsSIP.WebSocketInterface(seat.wss_url)], uri: 'sip:' + seat.username + '@' + seat.sip_domain, password: seat.password, register: true });
  ua.on('registered', () => { say('registered', 'Ready: calls offered to you ring here.'); show(); });
  ua.on('registrationFailed', (e) => { say('failed', 'Registration failed: ' + e.cause); show('connect'); });
  ua.on('newRTCSession', ({ session: s, originator }) => {
    if (originator !== 'remote') return;
    session = s;
    if (s.connection) hear(s.connection); else s.on('peerconnection', ({ peerconnection }) => hear(peerconnection));
    const from = s.remote_identity.uri.user;
    say('ringing', 'Ringing: ' + from);
    show('answer', 'hangup');
    s.on('confirmed', () => { say('in-call', 'On a call with ' + from); show('hangup'); });
    s.on('ended', () => { say('registered', 'Call ended. Ready.'); show(); session = null; });
    s.on('failed', () => { say('registered', 'Missed call. Ready.'); show(); session = null; });
  });
  ua.start();
});
document.getElementById('phone-answer').addEventListener('click', () => {
  // Ringbase rings seats without an SDP offer: the browser makes it, asking for audio.
  session?.answer({ mediaConstraints: { audio: true, video: false }, rtcOfferConstraints: { offerToReceiveAudio: true }, pcConfig: { iceServers: JSON.parse(box.dataset.ice || '[]') } });
});
document.getElementById('phone-hangup').addEventListener('click', () => session?.terminate());
show('connect');
`;
