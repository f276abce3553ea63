// The one host name rule (src/net/hostname.ts): syntax, no single labels, IP literals by what the field allows.
import t from 'tap';
import { hostnameProblem } from '../../src/net/hostname.js';
import { BAD_HOSTNAMES, NAME_254 } from './support/bad-hostnames.js';

t.test('good host names are accepted under every IP policy', async (t) => {
  const good = ['example.com', 'sip.example.com', 'Hooks.Example.COM', 'example.com.', 'a-b.c-d.example', 'x1.io', 'xn--bcher-kva.example',
    `${'a'.repeat(63)}.com`, NAME_254.slice(1)];
  for (const host of good) {
    for (const ip of ['public', 'public-or-loopback', 'any'] as const) t.equal(hostnameProblem(host, ip), null, `${host} (${ip})`);
  }
  t.equal(NAME_254.slice(1).length, 253, 'the long one is at the 253 limit');
});

t.test('malformed names are refused with the reason', async (t) => {
  for (const host of BAD_HOSTNAMES) t.type(hostnameProblem(host, 'any'), 'string', JSON.stringify(host));
  t.match(hostnameProblem('', 'any'), /empty/);
  t.match(hostnameProblem('localhost', 'any'), /single name/);
  t.match(hostnameProblem('com', 'any'), /single name/);
  t.match(hostnameProblem('a..example.com', 'any'), /two dots/);
  t.match(hostnameProblem('-a.example.com', 'any'), /invalid label "-a"/);
  t.match(hostnameProblem(`${'x'.repeat(64)}.com`, 'any'), /invalid label/);
  t.match(hostnameProblem(NAME_254, 'any'), /253/);
  t.match(hostnameProblem('example.123', 'any'), /numeric label/);
  t.match(hostnameProblem('[example.com]', 'any'), /brackets/);
  t.match(hostnameProblem(' example.com', 'any'), /invalid label/, 'judged as given, not trimmed');
});

t.test('IP literals: public only, loopback too under the dev flag, or any (operator input)', async (t) => {
  const publicIps = ['203.0.114.9', '8.8.8.8', '2606:4700::1111', '[2606:4700::1111]'];
  const privateIps = ['10.0.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '::ffff:10.0.0.1', 'fd00::1', '0.0.0.0'];
  for (const ip of publicIps) t.equal(hostnameProblem(ip, 'public'), null, `${ip} is public`);
  for (const ip of [...privateIps, '127.0.0.1', '::1']) t.match(hostnameProblem(ip, 'public'), /not a public address/, `${ip} refused where only public IPs are allowed`);
  t.equal(hostnameProblem('127.0.0.1', 'public-or-loopback'), null, 'plain loopback under the dev flag');
  t.equal(hostnameProblem('[::1]', 'public-or-loopback'), null);
  t.match(hostnameProblem('10.0.0.1', 'public-or-loopback'), /not a public address/, 'the dev flag opens loopback only');
  for (const ip of [...privateIps, '127.0.0.1', '[::1]']) t.equal(hostnameProblem(ip, 'any'), null, `${ip} allowed for operator input`);
});
