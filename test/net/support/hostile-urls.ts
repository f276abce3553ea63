// The hostile-target corpus: every customer URL surface must refuse these. Shared by the outbound client's
// corpus test and the surface tests (API, markup, dashboard); nothing here is ever dialled.

export interface HostileCase { url: string; rule: string; allowHosts?: string[] }

export const HOSTILE_URLS: HostileCase[] = [
  // Loopback in every spelling WHATWG URL and the IPv6 embeddings allow.
  { url: 'http://127.0.0.1/', rule: 'address_refused' },
  { url: 'http://127.0.0.1:8080/admin', rule: 'address_refused' },
  { url: 'http://2130706433/', rule: 'address_refused' },
  { url: 'http://0177.0.0.1/', rule: 'address_refused' },
  { url: 'http://0x7f.0.0.1/', rule: 'address_refused' },
  { url: 'http://0x7f000001/', rule: 'address_refused' },
  { url: 'http://127.1/', rule: 'address_refused' },
  { url: 'http://127.0.0.1./', rule: 'address_refused' },
  { url: 'http://[::1]/', rule: 'address_refused' },
  { url: 'http://[::ffff:127.0.0.1]/', rule: 'address_refused' },
  { url: 'http://[::ffff:7f00:1]/', rule: 'address_refused' },
  { url: 'http://[0:0:0:0:0:ffff:127.0.0.1]/', rule: 'address_refused' },
  { url: 'http://[::127.0.0.1]/', rule: 'address_refused' },
  { url: 'http://[64:ff9b::127.0.0.1]/', rule: 'address_refused' },
  { url: 'http://[2002:7f00:1::1]/', rule: 'address_refused' },
  { url: 'http://[2001::1]/', rule: 'address_refused' },
  // Loopback and infrastructure names.
  { url: 'http://localhost/', rule: 'internal_hostname' },
  { url: 'http://localhost./', rule: 'internal_hostname' },
  { url: 'http://LOCALHOST/', rule: 'internal_hostname' },
  { url: 'http://%6c%6fcalhost/', rule: 'internal_hostname' },
  { url: 'http://foo.localhost/', rule: 'internal_hostname' },
  { url: 'http://metadata.google.internal/computeMetadata/v1/', rule: 'internal_hostname' },
  { url: 'http://metadata/', rule: 'internal_hostname' },
  { url: 'http://instance-data/latest/', rule: 'internal_hostname' },
  { url: 'https://printer.local/', rule: 'internal_hostname' },
  // Cloud metadata endpoints.
  { url: 'http://169.254.169.254/latest/meta-data/', rule: 'address_refused' },
  { url: 'http://[::ffff:169.254.169.254]/', rule: 'address_refused' },
  { url: 'http://[fd00:ec2::254]/', rule: 'address_refused' },
  { url: 'http://100.100.100.200/', rule: 'address_refused' },
  // Private, shared, unspecified, link-local, multicast, broadcast, reserved, benchmarking.
  { url: 'http://100.64.0.1/', rule: 'address_refused' },
  { url: 'http://0.0.0.0/', rule: 'address_refused' },
  { url: 'http://0/', rule: 'address_refused' },
  { url: 'http://[::]/', rule: 'address_refused' },
  { url: 'http://10.0.0.1/', rule: 'address_refused' },
  { url: 'http://10.255.255.254/', rule: 'address_refused' },
  { url: 'http://172.16.0.1/', rule: 'address_refused' },
  { url: 'http://172.31.255.255/', rule: 'address_refused' },
  { url: 'http://192.168.1.1/', rule: 'address_refused' },
  { url: 'http://[fe80::1]/', rule: 'address_refused' },
  { url: 'http://169.254.0.1/', rule: 'address_refused' },
  { url: 'http://[fc00::1]/', rule: 'address_refused' },
  { url: 'http://[fd12:3456::1]/', rule: 'address_refused' },
  { url: 'http://224.0.0.1/', rule: 'address_refused' },
  { url: 'http://[ff02::1]/', rule: 'address_refused' },
  { url: 'http://255.255.255.255/', rule: 'address_refused' },
  { url: 'http://240.0.0.1/', rule: 'address_refused' },
  { url: 'http://198.18.0.1/', rule: 'address_refused' },
  // More spellings: octal and decimal private addresses, IPv4-mapped private and shared space.
  { url: 'http://0300.0250.0.1/', rule: 'address_refused' },
  { url: 'http://3232235521/', rule: 'address_refused' },
  { url: 'http://017700000001/', rule: 'address_refused' },
  { url: 'http://0x7f.1/', rule: 'address_refused' },
  { url: 'http://[::ffff:a9fe:a9fe]/', rule: 'address_refused' },
  { url: 'http://[::ffff:10.0.0.1]/', rule: 'address_refused' },
  { url: 'http://[::ffff:100.64.0.1]/', rule: 'address_refused' },
  { url: 'http://metadata.goog/', rule: 'internal_hostname' },
  // Names that only turn hostile once resolved: judged at connect time.
  { url: 'https://internal.example.com/hook', rule: 'address_refused' },
  { url: 'https://rebind.example.com/hook', rule: 'address_refused' },
  { url: 'https://rebind6.example.com/hook', rule: 'address_refused' },
  { url: 'https://metadata-alias.example.com/', rule: 'address_refused' },
  { url: 'https://mapped.example.com/', rule: 'address_refused' },
  { url: 'https://mixed.example.com/hook', rule: 'address_refused' },
  { url: 'https://mixed6.example.com/hook', rule: 'address_refused' },
  { url: 'https://nowhere.example.com/hook', rule: 'unresolvable' },
  // Parser-confusion tricks.
  { url: 'https://example.com@127.0.0.1/', rule: 'userinfo_not_allowed' },
  { url: 'https://user:pass@example.com/', rule: 'userinfo_not_allowed' },
  { url: 'https://127.0.0.1#@example.com', rule: 'address_refused' },
  { url: 'https://127.0.0.1?@example.com/', rule: 'address_refused' },
  // Allow-list boundary.
  { url: 'https://evil-example.com/', rule: 'host_not_allowed', allowHosts: ['example.com'] },
  { url: 'https://example.com.evil.net/', rule: 'host_not_allowed', allowHosts: ['example.com'] },
  { url: 'https://other.org/', rule: 'host_not_allowed', allowHosts: [] },
  // Schemes and transport.
  { url: 'file:///etc/passwd', rule: 'scheme_not_allowed' },
  { url: 'gopher://127.0.0.1:6379/_INFO', rule: 'scheme_not_allowed' },
  { url: 'ftp://example.com/', rule: 'scheme_not_allowed' },
  { url: 'javascript:alert(1)', rule: 'scheme_not_allowed' },
  { url: 'http://internal.example.com/hook', rule: 'https_required' },
  { url: 'not a url', rule: 'invalid_url' },
];

/** Refused on their face (no name resolution, no allow-list, any scheme rule): what every input surface must turn away. */
export const STATIC_HOSTILE_URLS: string[] = HOSTILE_URLS
  .filter((c) => !c.allowHosts && !['unresolvable', 'https_required'].includes(c.rule) && !needsResolution(c))
  .map((c) => c.url);

/** The names of the test resolver (internal.example.com, ...) are hostile only once resolved. */
function needsResolution(c: HostileCase): boolean {
  return c.rule === 'address_refused' && new URL(c.url).hostname.endsWith('.example.com');
}
