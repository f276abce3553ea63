// A carrier's gateway over SIP/TLS for the carrier tests, since Debian's sipp is built without TLS (and without
// SRTP): a TLS listener with its own certificate that answers each INVITE with 100 Trying, then 200 OK with the SDP
// the test makes from the offer, and 200 OK to BYE and OPTIONS. Messages are framed by Content-Length, as a stream
// transport requires. Every message it got is kept, with the TLS version of the connection it came over.
import { randomBytes } from 'node:crypto';
import { createServer, type TLSSocket } from 'node:tls';

export interface GatewayRequest {
  method: string;
  startLine: string;
  /** Header lines in order, names lower-cased. */
  headers: Array<[string, string]>;
  body: string;
  /** The connection's TLS protocol (TLSv1.3, TLSv1.2). */
  tls: string | null;
}

export interface TlsGateway {
  port: number;
  /** Every request received, in order. */
  requests: GatewayRequest[];
  close(): Promise<void>;
}

const COMPACT: Record<string, string> = { v: 'via', f: 'from', t: 'to', i: 'call-id', m: 'contact', l: 'content-length', c: 'content-type' };

export const headerOf = (m: GatewayRequest, name: string): string | undefined => m.headers.find(([n]) => n === name.toLowerCase())?.[1];

/**
 * Listens on 127.0.0.1 (a port of its own) with `key`/`cert`. `answer` gets each INVITE and gives the SDP of its
 * 200 OK (after `ringMs`); it may also give a SIP status to refuse with instead.
 */
export async function tlsGateway(o: { key: string; cert: string; ringMs?: number; answer: (invite: GatewayRequest) => Promise<string | number> }): Promise<TlsGateway> {
  const requests: GatewayRequest[] = [];
  const sockets = new Set<TLSSocket>();
  const server = createServer({ key: o.key, cert: o.cert, minVersion: 'TLSv1.2' }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    const reply = (req: GatewayRequest, status: string, extra: string[] = [], body = '') => {
      const copied = req.headers.filter(([n]) => n === 'via' || n === 'from' || n === 'call-id' || n === 'cseq').map(([n, v]) => `${n}: ${v}`);
      const to = headerOf(req, 'to') ?? '';
      const lines = [`SIP/2.0 ${status}`, ...copied, `To: ${/;tag=/.test(to) ? to : `${to};tag=${tag}`}`, ...extra, `Content-Length: ${Buffer.byteLength(body)}`];
      socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
    };
    const tag = randomBytes(6).toString('hex');
    const onRequest = async (req: GatewayRequest) => {
      requests.push(req);
      if (req.method === 'INVITE') {
        reply(req, '100 Trying');
        const sdp = await o.answer(req);
        await new Promise((r) => setTimeout(r, o.ringMs ?? 100));
        if (typeof sdp === 'number') { reply(req, `${sdp} Refused`); return; }
        reply(req, '200 OK', [`Contact: <sip:gateway@127.0.0.1:${port};transport=tls>`, 'Content-Type: application/sdp'], sdp);
      } else if (req.method !== 'ACK') reply(req, '200 OK');
    };
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        while (buf.length >= 2 && buf[0] === 0x0d && buf[1] === 0x0a) buf = buf.subarray(2); // keep-alive CRLFs
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString();
        const length = Number(/^(?:content-length|l)\s*:\s*(\d+)/mi.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        const body = buf.subarray(end + 4, end + 4 + length).toString();
        buf = buf.subarray(end + 4 + length);
        const [startLine = '', ...lines] = head.split('\r\n');
        if (startLine.startsWith('SIP/2.0')) continue; // a response: nothing of ours needs one
        const headers = lines.filter((l) => l.indexOf(':') > 0).map((l): [string, string] => {
          const name = l.slice(0, l.indexOf(':')).trim().toLowerCase();
          return [COMPACT[name] ?? name, l.slice(l.indexOf(':') + 1).trim()];
        });
        void onRequest({ method: startLine.split(' ')[0]!, startLine, headers, body, tls: socket.getProtocol() });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    requests,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
