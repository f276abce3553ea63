// Carrier number rules (src/net/number-rules.ts): E.164 to and from the way each provider writes numbers.
import t from 'tap';
import {
  E164_RULES, fromCarrierNumber, numberRulesProblem, toCarrierNumber, type NumberPart, type NumberRules,
} from '../../src/net/number-rules.js';

const rules = (over: Partial<NumberRules>): NumberRules => ({ ...E164_RULES, ...over });
const INTL = rules({ format: 'international' });
const US = rules({ format: 'national', countryCode: '1', nationalPrefix: '1', internationalPrefix: '011' });
const US_BARE = rules({ format: 'national', countryCode: '1' });
const UK = rules({ format: 'national', countryCode: '44', nationalPrefix: '0', internationalPrefix: '00' });
const IE_TECH = rules({ format: 'national', countryCode: '353', nationalPrefix: '0', internationalPrefix: '00', techPrefix: '1234#' });
const AE_NINE = rules({ format: 'national', countryCode: '971', nationalPrefix: '0', techPrefix: '9' });
const E164_TECH = rules({ techPrefix: '1234#' });
const INTL_NINE = rules({ format: 'international', techPrefix: '9' });
const IT = rules({ format: 'national', countryCode: '39', internationalPrefix: '00' });

type Row = [label: string, direction: 'out' | 'in', r: NumberRules, part: NumberPart, input: string, expected: string];
const RU = 'request-uri';
const CID = 'caller-id';
const TABLE: Row[] = [
  // outbound
  ['e164 keeps E.164', 'out', E164_RULES, RU, '+15551234567', '+15551234567'],
  ['international drops the plus', 'out', INTL, CID, '+442071234567', '442071234567'],
  ['US national with prefix 1', 'out', US, RU, '+15551234567', '15551234567'],
  ['US national, other country via 011', 'out', US, CID, '+442071234567', '011442071234567'],
  ['US national without prefixes', 'out', US_BARE, CID, '+15551234567', '5551234567'],
  ['US national without international prefix keeps E.164', 'out', US_BARE, RU, '+442071234567', '+442071234567'],
  ['UK national', 'out', UK, RU, '+442071234567', '02071234567'],
  ['UK national, US number via 00', 'out', UK, CID, '+15551234567', '0015551234567'],
  ['Ireland national with tech prefix on the request URI', 'out', IE_TECH, RU, '+35312345678', '1234#012345678'],
  ['Ireland national: no tech prefix on caller ID', 'out', IE_TECH, CID, '+35312345678', '012345678'],
  ['UAE other country without international prefix, tech 9', 'out', AE_NINE, RU, '+15551234567', '9+15551234567'],
  ['e164 with tech prefix', 'out', E164_TECH, RU, '+15551234567', '1234#+15551234567'],
  ['anonymous caller ID passes', 'out', UK, CID, 'anonymous', 'anonymous'],
  ['extension passes but gets the tech prefix on the request URI', 'out', INTL_NINE, RU, '1001', '91001'],
  ['over-length is not E.164 and passes', 'out', INTL, CID, '+1234567890123456', '+1234567890123456'],
  // inbound
  ['e164 bare digits get a plus', 'in', E164_RULES, CID, '15551234567', '+15551234567'],
  ['international bare digits', 'in', INTL, RU, '442071234567', '+442071234567'],
  ['plus stays whatever the format', 'in', UK, CID, '+15551234567', '+15551234567'],
  ['US national prefix 1', 'in', US, CID, '15551234567', '+15551234567'],
  ['US national without the prefix', 'in', US, RU, '5551234567', '+15551234567'],
  ['US 011 international', 'in', US, RU, '011442071234567', '+442071234567'],
  ['UK 0 national', 'in', UK, RU, '02071234567', '+442071234567'],
  ['UK 00 international before the 0', 'in', UK, CID, '0015551234567', '+15551234567'],
  ['UK bare national number', 'in', UK, CID, '2071234567', '+442071234567'],
  ['Ireland tech prefix stripped from the request URI', 'in', IE_TECH, RU, '1234#012345678', '+35312345678'],
  ['Ireland: tech prefix absent is fine', 'in', IE_TECH, RU, '012345678', '+35312345678'],
  ['Ireland: caller ID keeps a tech-looking prefix (not a number)', 'in', IE_TECH, CID, '1234#012345678', '1234#012345678'],
  ['UAE tech 9 then national', 'in', AE_NINE, RU, '9041234567', '+97141234567'],
  ['UAE caller ID: no tech prefix stripped', 'in', AE_NINE, CID, '041234567', '+97141234567'],
  ['anonymous passes', 'in', US, CID, 'anonymous', 'anonymous'],
  ['extension passes (international)', 'in', INTL, RU, '1001', '1001'],
  ['extension passes (national, after the prefix)', 'in', US, RU, '11001', '11001'],
  ['extension after the tech prefix loses only the prefix', 'in', INTL_NINE, RU, '91001', '1001'],
  ['separators are not digits: unchanged', 'in', INTL, CID, '1-555-123-4567', '1-555-123-4567'],
  ['over-length bare digits: unchanged', 'in', INTL, CID, '1234567890123456', '1234567890123456'],
  ['over-length once the country code is added: unchanged', 'in', IE_TECH, RU, '1234#01234567890123', '01234567890123'],
  ['leading zero is no country code: unchanged', 'in', INTL, CID, '0442071234567', '0442071234567'],
  ['the tech prefix alone is left alone', 'in', INTL_NINE, RU, '9', '9'],
];

t.test('the table: both directions, both parts, every format', async (t) => {
  t.ok(TABLE.length >= 24, `${TABLE.length} rows`);
  for (const [label, direction, r, part, input, expected] of TABLE) {
    const got = direction === 'out' ? toCarrierNumber(input, r, part) : fromCarrierNumber(input, r, part);
    t.equal(got, expected, `${direction} ${part}: ${label} (${input})`);
  }
});

t.test('every rule set used here is valid', async (t) => {
  for (const r of [E164_RULES, INTL, US, US_BARE, UK, IE_TECH, AE_NINE, E164_TECH, INTL_NINE, IT]) {
    t.equal(numberRulesProblem(r), null, JSON.stringify(r));
  }
});

t.test('round trip: fromCarrierNumber(toCarrierNumber(n)) === n', async (t) => {
  const numbers = ['+15551234567', '+442071234567', '+447911123456', '+35312345678', '+97141234567', '+390612345678',
    '+4930123456', '+8613812345678', '+61212345678', '+123456789012345'];
  const notNumbers = ['anonymous', '1001', 'alice'];
  for (const r of [E164_RULES, INTL, US, US_BARE, UK, IE_TECH, AE_NINE, E164_TECH, INTL_NINE, IT]) {
    for (const n of [...numbers, ...notNumbers]) {
      for (const part of [RU, CID] as const) {
        const written = toCarrierNumber(n, r, part);
        t.equal(fromCarrierNumber(written, r, part), n, `${n} via ${JSON.stringify(written)} (${part}, ${JSON.stringify(r)})`);
      }
    }
  }
});

t.test('unusable rules are refused, naming the field', async (t) => {
  const bad: [Partial<NumberRules>, RegExp][] = [
    [{ format: 'national' }, /^countryCode is required/],
    [{ format: 'national', countryCode: '1234' }, /^countryCode must be 1-3 digits/],
    [{ format: 'national', countryCode: '044' }, /^countryCode must be/],
    [{ format: 'national', countryCode: '+44' }, /^countryCode must be/],
    [{ format: 'international', countryCode: '1' }, /^countryCode is only used with the 'national' format/],
    [{ format: 'e164', nationalPrefix: '0' }, /^nationalPrefix is only used/],
    [{ format: 'international', internationalPrefix: '00' }, /^internationalPrefix is only used/],
    [{ format: 'national', countryCode: '44', nationalPrefix: '0#' }, /^nationalPrefix must be 1-6 digits/],
    [{ format: 'national', countryCode: '44', internationalPrefix: '' }, /^internationalPrefix must be/],
    [{ format: 'national', countryCode: '44', nationalPrefix: '00', internationalPrefix: '00' },
      /^nationalPrefix must not start with the internationalPrefix/],
    [{ techPrefix: '12 34' }, /^techPrefix may only hold digits, # and \*/],
    [{ techPrefix: '' }, /^techPrefix may only hold/],
    [{ techPrefix: '1'.repeat(17) }, /^techPrefix is longer than 16 characters/],
    [{ format: 'tel' as NumberRules['format'] }, /^format must be/],
  ];
  for (const [over, message] of bad) t.match(numberRulesProblem(rules(over)), message, JSON.stringify(over));
  t.equal(numberRulesProblem(rules({ techPrefix: '*#0'.repeat(5) + '1' })), null, 'a 16-character tech prefix of digits, # and *');
  t.equal(numberRulesProblem(UK), null, "UK's national 0 beside its international 00");
});
