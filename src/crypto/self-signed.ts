// A self-signed certificate for a host name, valid for localhost and 127.0.0.1 too: what a fresh install (the
// preview API's HTTPS) and the engine test harness (drachtio's tls/wss listeners) present until real ones exist.
import { isIP } from 'node:net';
import { generate } from 'selfsigned';

export async function selfSignedPems(hostName: string, validDays: number): Promise<{ cert: string; key: string }> {
  const dnsNames = [...new Set([hostName, 'localhost'])].filter((n) => !isIP(n)).map((value) => ({ type: 2 as const, value }));
  const pems = await generate([{ name: 'commonName', value: hostName }], {
    keySize: 2048, algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + validDays * 24 * 3600 * 1000),
    extensions: [{ name: 'subjectAltName', altNames: [...dnsNames, { type: 7 as const, ip: '127.0.0.1' }] }],
  });
  return { cert: pems.cert, key: pems.private };
}
