// A SIP user agent over TLS for the transport tests, since Debian's sipp is built without TLS: one connection,
// REGISTER and INVITE answering a 401/407 digest challenge (MD5, qop=auth), ACK, BYE; an INVITE from the
// platform answered with 200 OK and an SDP, and 200 OK to whatever else it asks within a call. Messages are
// framed by Content-Length, as a stream transport requires.
import { createHash, randomBytes } from 'node:crypto';
import { connect, type TLSSocket } from 'node:tls';

export interface SipMessage {
  /** Status code of a response; null for a request. */
  status: number | null;
  /** Method of a request; null for a response. */
  method: string | null;
  startLine: string;
  /** Every header line in order, names lower-cased (compact forms expanded). */
  headers: Array<[string, string]>;
  body: string;
}

export interface Credentials { username: string; password: string }

export interface TlsCall {
  /** The final response to the INVITE (after the digest answer). */
  final: SipMessage;
  /** Sends BYE in the dialog; resolves with its final response. Only for an answered call. */
  hangup(): Promise<SipMessage>;
}

export interface AnsweredCall {
  invite: SipMessage;
  /** Sends BYE in the dialog; resolves with its final response. */
  hangup(): Promise<SipMessage>;
}

const COMPACT: Record<string, string> = { v: 'via', f: 'from', t: 'to', i: 'call-id', m: 'contact', l: 'content-length', c: 'content-type', k: 'supported' };
const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const token = () => randomBytes(8).toString('hex');

export function header(msg: SipMessage, name: string): string | undefined {
  return msg.headers.find(([n]) => n === name.toLowerCase())?.[1];
}

function parseHead(head: string): Omit<SipMessage, 'body'> {
  const [startLine = '', ...lines] = head.split('\r\n');
  const headers: Array<[string, string]> = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.push([COMPACT[name] ?? name, line.slice(colon + 1).trim()]);
  }
  const status = /^SIP\/2\.0 (\d{3})/.exec(startLine);
  return { startLine, headers, status: status ? Number(status[1]) : null, method: status ? null : startLine.split(' ')[0]! };
}

/** The Authorization / Proxy-Authorization value answering a `Digest ...` challenge (RFC 2617, MD5, qop=auth). */
function digestAnswer(challenge: string, method: string, uri: string, creds: Credentials): string {
  const field = (k: string) => new RegExp(`${k}\\s*=\\s*(?:"([^"]*)"|([^\\s,]+))`, 'i').exec(challenge)?.slice(1).find((v) => v !== undefined);
  const realm = field('realm') ?? '';
  const nonce = field('nonce') ?? '';
  const opaque = field('opaque');
  const qopAuth = (field('qop') ?? '').split(',').map((q) => q.trim()).includes('auth');
  const ha1 = md5(`${creds.username}:${realm}:${creds.password}`);
  const ha2 = md5(`${method}:${uri}`);
  const [nc, cnonce] = ['00000001', token()];
  const response = qopAuth ? md5(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`) : md5(`${ha1}:${nonce}:${ha2}`);
  return `Digest username="${creds.username}", realm="${realm}", nonce="${nonce}", uri="${uri}", response="${response}", algorithm=MD5`
    + (qopAuth ? `, qop=auth, nc=${nc}, cnonce="${cnonce}"` : '') + (opaque !== undefined ? `, opaque="${opaque}"` : '');
}

/** One call's (or registration's) fixed headers and its CSeq counter. */
interface Dialog { callId: string; from: string; to: string; cseq: number; target: string; routes: string[] }

export class SipTlsClient {
  #buf = Buffer.alloc(0);
  /** Final-response waiters by the branch of the request they answer. */
  readonly #waiting = new Map<string, (msg: SipMessage) => void>();
  readonly #closed: Promise<void>;
  /** Every final response, in order (a challenge and the answer to its digest are two). */
  readonly finals: SipMessage[] = [];
  /** Every request the platform sent (INVITE, ACK, BYE, ...), in order. */
  readonly received: SipMessage[] = [];
  /** Who takes the next INVITE from the platform; without one it is refused with 486. */
  #answer: ((invite: SipMessage) => void) | null = null;
  /** Waiters for the ACK of a 200 OK we sent, by Call-ID. */
  readonly #acks = new Map<string, () => void>();

  private constructor(private readonly socket: TLSSocket, private readonly server: string) {
    socket.on('data', (d: Buffer) => this.#onData(d));
    this.#closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => { /* surfaces as close: waiters time out in the test */ });
  }

  /** Connects to drachtio's TLS listener, verifying its certificate against `ca` (and 127.0.0.1 against its names). */
  static connect(port: number, ca: string): Promise<SipTlsClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, ca: [ca] }, () => resolve(new SipTlsClient(socket, `127.0.0.1:${port}`)));
      socket.once('error', reject);
    });
  }

  get localPort(): number { return this.socket.localPort!; }

  /** Our address as a SIP URI: the connection's own port, so requests to it reuse this connection. */
  #contact(user: string): string { return `<sip:${user}@127.0.0.1:${this.localPort};transport=tls>`; }

  /** REGISTER, answering a 401 once; resolves with the final response. */
  async register(creds: Credentials, expires = 120): Promise<SipMessage> {
    const aor = `<sip:${creds.username}@127.0.0.1>`;
    const dialog: Dialog = { callId: token(), from: `${aor};tag=${token()}`, to: aor, cseq: 1, target: `sip:${this.server};transport=tls`, routes: [] };
    return this.#authenticated('REGISTER', dialog, creds, [`Contact: ${this.#contact(creds.username)}`, `Expires: ${expires}`], '');
  }

  /** INVITE `to` with `sdp`, answering a 407 once; on 200 OK the ACK is sent and the call can be hung up. */
  async invite(to: string, from: string, creds: Credentials, sdp: string): Promise<TlsCall> {
    const dialog: Dialog = {
      callId: token(), from: `<sip:${from}@127.0.0.1>;tag=${token()}`, to: `<sip:${to}@127.0.0.1>`, cseq: 1,
      target: `sip:${to}@${this.server};transport=tls`, routes: [],
    };
    const extra = [`Contact: ${this.#contact(from)}`, 'Content-Type: application/sdp'];
    const final = await this.#authenticated('INVITE', dialog, creds, extra, sdp);
    if (final.status !== 200) return { final, hangup: () => Promise.reject(new Error(`call not answered: ${final.startLine}`)) };
    // The dialog: the platform's tag, its Contact as target for in-dialog requests, its Record-Route reversed.
    dialog.to = header(final, 'to')!;
    dialog.target = /<([^>]+)>/.exec(header(final, 'contact') ?? '')?.[1] ?? dialog.target;
    dialog.routes = final.headers.filter(([n]) => n === 'record-route').map(([, v]) => v).reverse();
    this.#write(this.#request('ACK', dialog, `${dialog.cseq} ACK`, [], '').text);
    return { final, hangup: () => this.#bye(dialog) };
  }

  /**
   * Answers the next INVITE from the platform with 200 OK and `sdp` as `user`; resolves with the call once the
   * platform has ACKed the 200.
   */
  answerNext(user: string, sdp: string): Promise<AnsweredCall> {
    return new Promise((resolve) => {
      this.#answer = (invite) => {
        this.#answer = null;
        // The dialog seen from our side (RFC 3261 §12.1.1): its From is our To, our target its Contact, and
        // the route set its Record-Route in order.
        const to = `${header(invite, 'to')};tag=${token()}`;
        const dialog: Dialog = {
          callId: header(invite, 'call-id')!, from: to, to: header(invite, 'from')!, cseq: 1,
          target: /<([^>]+)>/.exec(header(invite, 'contact') ?? '')?.[1] ?? '', routes: invite.headers.filter(([n]) => n === 'record-route').map(([, v]) => v),
        };
        this.#acks.set(dialog.callId, () => resolve({ invite, hangup: () => this.#bye(dialog) }));
        this.#respond(invite, '200 OK', [`Contact: ${this.#contact(user)}`, 'Content-Type: application/sdp'], sdp, to);
      };
    });
  }

  #bye(dialog: Dialog): Promise<SipMessage> {
    dialog.cseq++;
    return this.#transaction(this.#request('BYE', dialog, `${dialog.cseq} BYE`, [], ''));
  }

  /** Ends the connection (close_notify, FIN); destroyed if the server has not closed its side within 2 s. */
  close(): Promise<void> {
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 2_000).unref();
    return this.#closed;
  }

  /** Sends a request; on 401/407 answers the challenge once with a new CSeq (ACKing a challenged INVITE). */
  async #authenticated(method: string, dialog: Dialog, creds: Credentials, extra: string[], body: string): Promise<SipMessage> {
    const first = this.#request(method, dialog, `${dialog.cseq} ${method}`, extra, body);
    let res = await this.#transaction(first);
    if (res.status === 401 || res.status === 407) {
      const [challengeName, answerName] = res.status === 401 ? ['www-authenticate', 'Authorization'] : ['proxy-authenticate', 'Proxy-Authorization'];
      const answer = digestAnswer(header(res, challengeName) ?? '', method, dialog.target, creds);
      dialog.cseq++;
      res = await this.#transaction(this.#request(method, dialog, `${dialog.cseq} ${method}`, [...extra, `${answerName}: ${answer}`], body));
    }
    return res;
  }

  #request(method: string, d: Dialog, cseq: string, extra: string[], body: string): { text: string; branch: string; method: string; d: Dialog } {
    const branch = `z9hG4bK${token()}`;
    const lines = [
      `${method} ${d.target} SIP/2.0`,
      `Via: SIP/2.0/TLS 127.0.0.1:${this.localPort};rport;branch=${branch}`,
      ...d.routes.map((r) => `Route: ${r}`),
      'Max-Forwards: 70', `From: ${d.from}`, `To: ${d.to}`, `Call-ID: ${d.callId}`, `CSeq: ${cseq}`,
      'User-Agent: ringbase-test-tls', ...extra, `Content-Length: ${Buffer.byteLength(body)}`, '', body,
    ];
    return { text: lines.join('\r\n'), branch, method, d };
  }

  /**
   * Sends a request and resolves with its final response, rejecting after 32 s (64*T1, RFC 3261 timers B and F);
   * a failed INVITE is ACKed (same branch, RFC 3261 §17.1.1.3).
   */
  #transaction(req: { text: string; branch: string; method: string; d: Dialog }): Promise<SipMessage> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(req.branch);
        reject(new Error(`no final response to ${req.method} in 32 s`));
      }, 32_000);
      this.#waiting.set(req.branch, (res) => {
        clearTimeout(timer);
        this.#waiting.delete(req.branch);
        if (req.method === 'INVITE' && res.status! >= 300) {
          const cseq = (header(res, 'cseq') ?? '').split(/\s+/)[0];
          this.#write([
            `ACK ${req.d.target} SIP/2.0`, `Via: SIP/2.0/TLS 127.0.0.1:${this.localPort};rport;branch=${req.branch}`, 'Max-Forwards: 70',
            `From: ${req.d.from}`, `To: ${header(res, 'to')}`, `Call-ID: ${req.d.callId}`, `CSeq: ${cseq} ACK`, 'Content-Length: 0', '', '',
          ].join('\r\n'));
        }
        resolve(res);
      });
      this.#write(req.text);
    });
  }

  #write(text: string): void { this.socket.write(text); }

  #onData(chunk: Buffer): void {
    this.#buf = Buffer.concat([this.#buf, chunk]);
    for (;;) {
      // CRLFs between messages are keep-alives (RFC 5626 pings and pongs).
      let start = 0;
      while (this.#buf[start] === 0x0d || this.#buf[start] === 0x0a) start++;
      this.#buf = this.#buf.subarray(start);
      const end = this.#buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = parseHead(this.#buf.subarray(0, end).toString('utf8'));
      const length = Number(head.headers.find(([n]) => n === 'content-length')?.[1] ?? 0);
      if (this.#buf.length < end + 4 + length) return;
      const msg: SipMessage = { ...head, body: this.#buf.subarray(end + 4, end + 4 + length).toString('utf8') };
      this.#buf = this.#buf.subarray(end + 4 + length);
      this.#dispatch(msg);
    }
  }

  #dispatch(msg: SipMessage): void {
    if (msg.status !== null) {
      if (msg.status < 200) return; // 100 Trying, 180 Ringing: nothing to do
      this.finals.push(msg);
      const branch = /branch=([^;,\s]+)/.exec(header(msg, 'via') ?? '')?.[1];
      if (branch) this.#waiting.get(branch)?.(msg);
      return;
    }
    this.received.push(msg);
    if (msg.method === 'ACK') {
      const callId = header(msg, 'call-id')!;
      this.#acks.get(callId)?.();
      this.#acks.delete(callId);
      return;
    }
    if (msg.method === 'INVITE' && !/;\s*tag=/.test(header(msg, 'to') ?? '')) {
      if (this.#answer) this.#answer(msg);
      else this.#respond(msg, '486 Busy Here', [], '', `${header(msg, 'to')};tag=${token()}`);
      return;
    }
    // Anything else within a call (BYE, OPTIONS): 200 OK.
    this.#respond(msg, '200 OK', [], '');
  }

  /** A response echoing the request's Vias, From, To (or `to`, with our tag), Call-ID and CSeq. */
  #respond(req: SipMessage, status: string, extra: string[], body: string, to = header(req, 'to')!): void {
    const echo = req.headers.filter(([n]) => ['via', 'from', 'call-id', 'cseq'].includes(n)).map(([n, v]) => `${n}: ${v}`);
    this.#write([`SIP/2.0 ${status}`, ...echo, `to: ${to}`, ...extra, `Content-Length: ${Buffer.byteLength(body)}`, '', body].join('\r\n'));
  }
}
