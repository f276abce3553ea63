// Keys carried by SIP INFO, in the forms carriers send them (src/engine/drachtio/info-dtmf.ts).
import t from 'tap';
import { keyOfInfo } from '../../../src/engine/drachtio/info-dtmf.js';

t.test('application/dtmf-relay and application/dtmf bodies give their key; anything else none', async (t) => {
  const cases: Array<[string | undefined, string | undefined, string | null]> = [
    ['application/dtmf-relay', 'Signal=5\r\nDuration=160\r\n', '5'],
    ['application/dtmf-relay', 'signal= *\nduration=100', '*'],
    ['Application/DTMF-Relay; charset=utf-8', 'Signal=#\r\n', '#'],
    ['application/dtmf-relay', 'Signal=10\r\nDuration=160', '*'],
    ['application/dtmf-relay', 'Signal=11', '#'],
    ['application/dtmf-relay', 'Signal=a', 'A'],
    ['application/dtmf', '7', '7'],
    ['application/dtmf', ' 0 \r\n', '0'],
    ['application/dtmf-relay', 'Duration=160', null],
    ['application/dtmf-relay', 'Signal=55', null],
    ['application/dtmf-relay', 'Signal=E', null],
    ['application/dtmf', '', null],
    ['application/media_control+xml', '<media_control/>', null],
    [undefined, 'Signal=5', null],
  ];
  for (const [type, body, key] of cases) t.equal(keyOfInfo(type, body), key, `${type} ${JSON.stringify(body)}`);
});
