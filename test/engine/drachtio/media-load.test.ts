// A media server's load between probes: a probe's count never drops media that count could not include (placed
// after the probe was sent, or still being created then). The orders below are the ones measured on a loaded
// machine: a probe sent 10 ms before a pick answered 20 ms after it, one sent 800 ms after a pick answered before
// FreeSWITCH had the session; each time the reply made the server look one call emptier and it got the next call.
import t from 'tap';
import { MediaLoad } from '../../../src/engine/drachtio/media-load.js';

t.test('a probe sent before a pick answers after it: the pick stays counted', async (t) => {
  const load = new MediaLoad();
  load.probed(1, load.probeSent());
  const sent = load.probeSent();
  load.picked();
  const created = load.creating();
  load.probed(1, sent);
  t.equal(load.value, 2, 'one session reported, one being created');
  created();
  load.probed(1, sent);
  t.equal(load.value, 2, 'created after the send: still on top of the count');
  load.probed(2, load.probeSent());
  t.equal(load.value, 2, 'a probe sent after the creation counts it once');
});

t.test('a probe sent after the pick but while the media is still being created', async (t) => {
  const load = new MediaLoad();
  load.picked();
  const created = load.creating();
  const sent = load.probeSent();
  load.probed(0, sent);
  t.equal(load.value, 1, 'FreeSWITCH has no session yet: the creation under way is counted');
  created();
  load.probed(1, load.probeSent());
  t.equal(load.value, 1);
});

t.test('a pick that never creates media is dropped by the next probe', async (t) => {
  const load = new MediaLoad();
  load.picked();
  t.equal(load.value, 1, 'counted at once: the next call goes elsewhere');
  load.probed(0, load.probeSent());
  t.equal(load.value, 0);
  const created = load.creating();
  t.equal(load.value, 1, 'a creation without a pick counts too (a relay, a late one)');
  created();
  load.probed(1, load.probeSent());
  t.equal(load.value, 1);
});

t.test('a failed creation leaves it to the count', async (t) => {
  const load = new MediaLoad();
  load.picked();
  load.creating()();
  load.probed(0, load.probeSent());
  t.equal(load.value, 0);
});

t.test('an older probe answering after a newer one changes nothing', async (t) => {
  const load = new MediaLoad();
  const older = load.probeSent();
  load.picked();
  load.creating()();
  load.probed(1, load.probeSent());
  load.probed(0, older);
  t.equal(load.value, 1);
});

t.test('a new connection starts from nothing', async (t) => {
  const load = new MediaLoad();
  load.probed(3, load.probeSent());
  load.picked();
  load.reset();
  t.equal(load.value, 0);
});

t.test('two creations under way: each ends its own', async (t) => {
  const load = new MediaLoad();
  load.picked();
  load.picked();
  const first = load.creating();
  const second = load.creating();
  second();
  load.probed(1, load.probeSent());
  t.equal(load.value, 2, 'the second is in the count, the first still under way and counted on top');
  first();
  first();
  load.probed(2, load.probeSent());
  t.equal(load.value, 2, 'ending one twice changes nothing');
});
