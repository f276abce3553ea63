// An HTTP request sent byte for byte as given: no URL normalisation (`..` stays in the path, `%ff` is not refused
// on the way out), any header and body. For tests of what the server does with what fetch would not send.
import { request as httpRequest } from 'node:http';

export interface RawAnswer { status: number; type: string; requestId: string | undefined; text: string; body: any }

export function rawRequest(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try { parsed = JSON.parse(text); } catch { parsed = undefined; }
        resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), requestId: res.headers['x-request-id'] as string | undefined, text, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Every byte of the UTF-8 text percent-encoded (a lone surrogate goes as U+FFFD, as a browser sends it). */
export const percentEncoded = (value: string) => [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
