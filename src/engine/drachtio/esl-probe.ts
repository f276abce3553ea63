// One FreeSWITCH event-socket exchange (auth, `api <command>`, the reply body) without fsmrf. The connection asks
// `sofia status` before handing the socket to fsmrf: fsmrf throws from inside a socket callback (an uncaught
// exception that ends the process) when the media profile is not listed yet, which is the case for a moment
// while FreeSWITCH starts, because mod_event_socket loads before mod_sofia.
import { connect } from 'node:net';

export function eslApi(host: string, port: number, password: string, command: string, timeoutMs = 3_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let buf = '';
    let stage: 'auth' | 'authed' | 'api' = 'auth';
    const done = (err: Error | null, body = '') => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err); else resolve(body);
    };
    const timer = setTimeout(() => done(new Error(`event socket ${host}:${port}: no reply within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (err) => done(err));
    socket.on('close', () => done(new Error(`event socket ${host}:${port} closed`)));
    socket.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      // Messages are a header block ending in a blank line, then Content-Length bytes of body.
      for (;;) {
        const end = buf.indexOf('\n\n');
        if (end < 0) return;
        const headers = buf.slice(0, end);
        const length = Number(/^Content-Length:\s*(\d+)/im.exec(headers)?.[1] ?? 0);
        if (buf.length < end + 2 + length) return;
        const body = buf.slice(end + 2, end + 2 + length);
        buf = buf.slice(end + 2 + length);
        const type = /^Content-Type:\s*(\S+)/im.exec(headers)?.[1];
        if (stage === 'auth' && type === 'auth/request') {
          stage = 'authed';
          socket.write(`auth ${password}\n\n`);
        } else if (stage === 'authed' && type === 'command/reply') {
          if (!/^Reply-Text:\s*\+OK/im.test(headers)) return done(new Error(`event socket ${host}:${port} refused the password`));
          stage = 'api';
          socket.write(`api ${command}\n\n`);
        } else if (stage === 'api' && type === 'api/response') {
          return done(null, body);
        } else if (type === 'text/rude-rejection') {
          return done(new Error(`event socket ${host}:${port} rejected the connection (acl)`));
        }
      }
    });
  });
}
