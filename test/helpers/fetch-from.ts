// A fetch whose connections leave from another loopback address (127.0.0.2...), so one test can be several
// clients as the server sees them. undici ignores a local address, hence node:http. No redirects are followed.
import http from 'node:http';

export function fetchFrom(localAddress: string): typeof fetch {
  return (async (input: string | URL, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    return new Promise<Response>((resolve, reject) => {
      const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers as Record<string, string>, localAddress }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const v of Array.isArray(value) ? value : [value ?? '']) headers.append(name, v);
          }
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers }));
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }) as typeof fetch;
}
