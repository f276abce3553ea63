#!/usr/bin/env node
// A complete webhook app for a Ringbase number, with nothing but Node: it answers inbound calls with
// examples/answer.xml, handles the menu key, logs status callbacks, and checks every request's signature.
//   RINGBASE_SIGNING_SECRET=... node examples/webhook-app.mjs        (listens on 127.0.0.1:3000, PORT to change)
// The signing secret is on the dashboard (Settings). Without it, signatures are not checked (a warning says so).
import { createServer } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

const PORT = Number(process.env.PORT ?? 3000);
const SECRET = process.env.RINGBASE_SIGNING_SECRET ?? '';
const TOLERANCE_S = 300;
const answer = readFileSync(new URL('./answer.xml', import.meta.url), 'utf8');

/** X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> (for GET: of "<t>.<query>"). */
function signed(header, payload) {
  if (!SECRET) return true;
  const parts = Object.fromEntries(String(header ?? '').split(',').map((p) => p.split('=')));
  const t = Number(parts.t);
  if (!parts.v1 || !Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > TOLERANCE_S) return false;
  const expected = Buffer.from(createHmac('sha256', SECRET).update(`${t}.${payload}`).digest('hex'));
  const given = Buffer.from(parts.v1);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const xml = (inner) => `<?xml version="1.0" encoding="UTF-8"?><Response>${inner}</Response>`;

function reply(req, body) {
  const callSid = req.headers['x-cpaas-call-sid'] ?? '';
  switch (new URL(req.url, 'http://x').pathname) {
    case '/voice':
      console.log(`call ${callSid}: from ${body.from} to ${body.to}`);
      return [200, answer];
    case '/menu':
      console.log(`call ${callSid}: pressed ${body.digit}`);
      if (body.digit === '1') return [200, xml(`<Say>It is ${new Date().toUTCString()}.</Say><Hangup/>`)];
      if (body.digit === '2') return [200, xml('<Say>Leave your message after the tone.</Say><Record maxLength="30"/>')];
      return [200, xml('<Say>That key does nothing. Goodbye.</Say><Hangup/>')];
    case '/status':
      console.log(`status ${body.CallSid ?? callSid}: ${body.CallStatus ?? JSON.stringify(body)}`);
      return [204, ''];
    default:
      return [404, ''];
  }
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const query = new URL(req.url, 'http://x').search.slice(1);
    if (!signed(req.headers['x-service-signature'], req.method === 'GET' ? query : raw)) {
      res.writeHead(401).end('bad signature\n');
      return;
    }
    const type = String(req.headers['content-type'] ?? '');
    const body = type.includes('json') ? JSON.parse(raw || '{}') : Object.fromEntries(new URLSearchParams(req.method === 'GET' ? query : raw));
    const [status, text] = reply(req, body);
    res.writeHead(status, status === 200 ? { 'content-type': 'application/xml' } : {}).end(text);
  });
}).listen(PORT, '127.0.0.1', () => {
  console.log(`webhook app on http://127.0.0.1:${PORT}/voice${SECRET ? '' : ' (RINGBASE_SIGNING_SECRET unset: signatures are not checked)'}`);
});
