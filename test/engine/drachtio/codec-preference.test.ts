// A carrier's codec preference narrows FreeSWITCH's offer (src/engine/drachtio/codec-preference.ts).
import t from 'tap';
import { preferCodecs } from '../../../src/engine/drachtio/codec-preference.js';

// FreeSWITCH's 3PCC offer as the tests see it.
const OFFER = [
  'v=0', 'o=FreeSWITCH 1 2 IN IP4 127.0.0.1', 's=FreeSWITCH', 'c=IN IP4 127.0.0.1', 't=0 0',
  'm=audio 13042 RTP/AVP 0 8 102 101 13 103 104',
  'a=rtpmap:0 PCMU/8000', 'a=rtpmap:8 PCMA/8000', 'a=rtpmap:102 opus/48000/2',
  'a=fmtp:102 useinbandfec=1; maxaveragebitrate=30000', 'a=rtpmap:101 telephone-event/8000', 'a=fmtp:101 0-15',
  'a=rtpmap:103 telephone-event/48000', 'a=fmtp:103 0-15', 'a=rtcp-mux', 'a=rtpmap:13 CN/8000', 'a=rtpmap:104 CN/48000', 'a=ptime:20', 'a=sendrecv', '',
].join('\r\n');

const mLine = (sdp: string) => /^m=audio .*$/m.exec(sdp)?.[0];

t.test('only the carrier\'s codecs, in its order, with keys and comfort noise at their rates', async (t) => {
  const pcma = preferCodecs(OFFER, ['PCMA', 'PCMU']);
  t.equal(mLine(pcma), 'm=audio 13042 RTP/AVP 8 0 101 13');
  t.notMatch(pcma, /opus|:103 |:104 |:102 /, 'the rest and its attributes gone');
  t.match(pcma, /a=fmtp:101 0-15\r\n/, 'the kept telephone-event keeps its fmtp');
  t.match(pcma, /a=rtcp-mux\r\na=rtpmap:13 CN\/8000\r\na=ptime:20\r\na=sendrecv\r\n$/, 'other lines and line ends as they were');
  t.equal(mLine(preferCodecs(OFFER, ['opus'])), 'm=audio 13042 RTP/AVP 102 103 104', 'OPUS with its 48 kHz companions');
  t.equal(mLine(preferCodecs(OFFER, ['G722', 'PCMU'])), 'm=audio 13042 RTP/AVP 0 101 13', 'a codec not offered is passed over');
  t.equal(preferCodecs(OFFER, ['G722']), OFFER, 'none offered: the offer as it was');
  t.equal(preferCodecs(OFFER, []), OFFER, 'no preference: as it was');
  const bare = 'v=0\nm=audio 4000 RTP/AVP 0 8 9\n';
  t.equal(preferCodecs(bare, ['G722', 'PCMA']), 'v=0\nm=audio 4000 RTP/AVP 9 8\n', 'static payload types without rtpmap');
});
