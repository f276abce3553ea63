// A TLS carrier's SRTP media, on a thread of its own (see rtp-phone-worker.mjs for why threads): SRTP from
// FreeSWITCH arrives on `port` (the port of the far end's SDP answer), is checked and decrypted with FreeSWITCH's
// key (its offer's a=crypto) and handed on as plain RTP to a tone phone; the phone's RTP is encrypted with the far
// end's own key (its answer's a=crypto) and sent back to where FreeSWITCH's SRTP comes from. A packet whose tag
// does not check is counted and dropped, never passed on: what the phone hears was decrypted.
import { execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { SrtpStream } from './srtp.mjs';

const thread = readlinkSync('/proc/thread-self').split('/').pop();
try { setPriority(Number(thread), -10); } catch { /* normal priority */ }
try { execFileSync('chrt', ['--fifo', '--pid', '11', thread], { stdio: 'ignore' }); } catch { /* as niced */ }

const { port, phonePort, theirKey, ourKey } = workerData;
const fromThem = new SrtpStream(theirKey);
const toThem = new SrtpStream(ourKey);
const stats = { srtpIn: 0, decrypted: 0, refused: 0, rtpFromPhone: 0, srtpOut: 0, peer: null };
let peer = null;
const outside = createSocket('udp4');
const inside = createSocket('udp4');

outside.on('message', (msg, rinfo) => {
  stats.srtpIn++;
  peer ??= { address: rinfo.address, port: rinfo.port };
  stats.peer = `${peer.address}:${peer.port}`;
  const plain = fromThem.unprotect(msg);
  if (!plain) { stats.refused++; return; }
  stats.decrypted++;
  inside.send(plain, phonePort, '127.0.0.1');
});
inside.on('message', (msg) => {
  stats.rtpFromPhone++;
  if (!peer || msg.length < 12) return;
  outside.send(toThem.protect(msg), peer.port, peer.address);
  stats.srtpOut++;
});

parentPort.on('message', (message) => {
  if (message === 'report') { parentPort.postMessage(stats); return; }
  outside.close();
  inside.close();
  parentPort.close();
});

let bound = 0;
const ready = () => { if (++bound === 2) parentPort.postMessage('ready'); };
outside.bind(port, '127.0.0.1', ready);
inside.bind(0, '127.0.0.1', ready);
