import t from 'tap';
import { checkTargetUrl, hostMatches, type UrlPolicyOptions } from '../../src/net/url-policy.js';

const strict: UrlPolicyOptions = { requireHttps: true, allowLoopback: false };
const dev: UrlPolicyOptions = { requireHttps: true, allowLoopback: true };

const codeOf = (url: string, opts: UrlPolicyOptions) => {
  const result = checkTargetUrl(url, opts);
  return result.ok ? 'ok' : result.code;
};

t.test('accepts ordinary public https URLs and returns the parsed URL', async (t) => {
  const result = checkTargetUrl('https://Hooks.Example.com/path?q=1', strict);
  t.equal(result.ok, true);
  if (result.ok) t.equal(result.url.hostname, 'hooks.example.com');
  t.equal(codeOf('https://93.184.216.34:8443/x', strict), 'ok');
  t.equal(codeOf('https://[2606:4700:4700::1111]/', strict), 'ok');
});

t.test('requireHttps', async (t) => {
  t.equal(codeOf('http://example.com/', strict), 'https_required');
  t.equal(codeOf('http://example.com/', { ...strict, requireHttps: false }), 'ok');
});

t.test('allowLoopback permits plain-http 127/8, ::1 and localhost only', async (t) => {
  for (const url of ['http://127.0.0.1:3000/', 'http://127.2.3.4/', 'http://[::1]:8080/', 'http://localhost:3000/', 'http://LOCALHOST./', 'https://localhost/']) {
    t.equal(codeOf(url, dev), 'ok', url);
  }
  const stillRefused: Array<[string, string]> = [
    ['http://10.0.0.1/', 'address_refused'],
    ['http://192.168.1.10/', 'address_refused'],
    ['http://169.254.169.254/', 'address_refused'],
    ['http://[::ffff:127.0.0.1]/', 'address_refused'],
    ['http://[64:ff9b::7f00:1]/', 'address_refused'],
    ['http://0.0.0.0/', 'address_refused'],
    ['http://foo.localhost/', 'internal_hostname'],
    ['http://metadata.google.internal/', 'internal_hostname'],
    ['http://example.com/', 'https_required'],
  ];
  for (const [url, code] of stillRefused) t.equal(codeOf(url, dev), code, url);
});

t.test('the allow-list still applies to loopback targets in dev mode', async (t) => {
  t.equal(codeOf('http://127.0.0.1:3000/', { ...dev, allowHosts: ['example.com'] }), 'host_not_allowed');
  t.equal(codeOf('http://127.0.0.1:3000/', { ...dev, allowHosts: ['127.0.0.1'] }), 'ok');
});

t.test('allow-list matching', async (t) => {
  const cases: Array<[host: string, entry: string, matches: boolean]> = [
    ['example.com', 'example.com', true],
    ['a.example.com', 'example.com', true],
    ['a.b.example.com', 'example.com', true],
    ['evil-example.com', 'example.com', false],
    ['example.com.evil.net', 'example.com', false],
    ['notexample.com', 'example.com', false],
    ['example.com', 'a.example.com', false],
    ['EXAMPLE.com', 'example.COM', true],
    ['example.com.', 'example.com', true],
    ['example.com', 'example.com.', true],
    ['example.com', ' example.com ', true],
    ['xn--bcher-kva.example', 'bücher.example', true],
    ['93.184.216.34', '93.184.216.34', true],
    ['[2606:4700::1]', '2606:4700::1', true],
    ['1.93.184.216.34', '93.184.216.34', false],
    ['example.com', '', false],
    ['example.com', 'http://[', false],
  ];
  for (const [host, entry, matches] of cases) t.equal(hostMatches(host, entry), matches, `${host} vs ${entry}`);
});

t.test('refusal reasons are human readable', async (t) => {
  const result = checkTargetUrl('http://169.254.169.254/', strict);
  t.match(result, { ok: false, code: 'address_refused', reason: /metadata/ });
});
