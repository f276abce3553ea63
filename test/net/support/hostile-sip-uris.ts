// The hostile SIP destination corpus: every surface that takes a SIP URI (API `to`, <Dial><Sip> inline and
// fetched, conference participants) must refuse these, even with the dev flag (which allows plain loopback).
// Nothing here is ever dialled.

/** Refused on their face: syntax that re-routes, internal names, and every spelling of a non-public address. */
export const HOSTILE_SIP_URIS: string[] = [
  'sip:alice@10.0.0.1',
  'sip:alice@10.0.0.1:5080;transport=tcp',
  'sips:alice@172.16.0.1',
  'sip:alice@192.168.1.10',
  'sip:alice@169.254.169.254',
  'sip:alice@169.254.1.1',
  'sip:alice@100.64.0.1',
  'sip:alice@0.0.0.0',
  'sip:alice@224.0.0.1',
  'sip:alice@255.255.255.255',
  'sip:alice@198.18.0.1',
  'sip:alice@2130706433',
  'sip:alice@0x7f000001',
  'sip:alice@0177.0.0.1',
  'sip:alice@[::ffff:127.0.0.1]',
  'sip:alice@[::ffff:7f00:1]',
  'sip:alice@[::ffff:10.0.0.1]',
  'sip:alice@[fd00::1]',
  'sip:alice@[fe80::1]',
  'sip:alice@[fd00:ec2::254]',
  'sip:alice@[64:ff9b::a00:1]',
  'sip:alice@[2002:a00:1::1]',
  'sip:alice@metadata.google.internal',
  'sip:alice@intranet',
  'sip:alice@pbx.local',
  'sip:alice@foo.localhost',
  'sip:alice@sip.example.com;maddr=10.0.0.1',
  'sip:alice@sip.example.com?Route=%3Csip:10.0.0.1%3E',
  'sip:alice:secret@sip.example.com',
  'sip:alice@sip.example.com:0',
];

/** Hostile only once resolved (the test resolver maps these names). */
export const RESOLVER_HOSTILE: Record<string, string> = {
  'rebind.example.com': '10.1.2.3',
  'meta.example.com': '169.254.169.254',
  'loop.example.com': '127.0.0.1',
};
