// How a SIP carrier writes phone numbers, and the translation between that and the E.164 the platform stores.
// Pure string work: the caller hands in a request-URI or caller-ID (From/P-Asserted-Identity) user part, already
// percent-decoded, and escapes the result itself. Rules are assumed to pass numberRulesProblem (the CLI and API refuse
// the rest), so both directions stay a few lines each.
//
// Outbound (toCarrierNumber), for an E.164 number:
//   - 'e164' keeps it; 'international' drops the '+';
//   - 'national' writes numbers of countryCode as nationalPrefix + national number, others as internationalPrefix +
//     digits, or in E.164 when there is no internationalPrefix (many carriers take '+' whatever their own format).
//   Anything else (an extension, 'anonymous', a SIP user) is not a number and passes unchanged.
//   Then, on the request URI only, the tech prefix goes in front of whatever was written, number or not: it routes or
//   bills the call at the carrier, which needs it on every call sent there. Caller ID never gets it.
// Inbound (fromCarrierNumber):
//   1. Request URI only: a leading tech prefix is removed (when present and something follows it). It is never part
//      of the number, so it is removed even when what follows is not one; that is also what keeps the round trip.
//   2. '+' in front: kept as it is, whatever the format (carriers mix formats; E.164 is never ambiguous).
//   3. Anything but digits (names, '#', separators: SIP user parts carry no visual separators) passes unchanged.
//   4. 'national': internationalPrefix + digits -> '+digits' (checked first: the UK's '00' starts with its '0');
//      nationalPrefix + digits -> '+' countryCode digits; bare digits without the national prefix are read as a
//      national number too (carriers often leave the prefix off the request URI), so '2071234567' is +442071234567.
//      'international' and 'e164': bare digits -> '+digits'.
//   5. Fewer than 6 digits once the prefixes are gone is an extension or short code ('1001', '999', '112'), as in
//      src/engine/drachtio/addresses.ts, and so is anything that does not come out as E.164 ('+', first digit 1-9, at
//      most 15 digits): both pass unchanged (after step 1).
// What the round trip cannot keep: national numbers under 6 digits (a few small countries), and a 'national' carrier's
// own numbers whose written form starts with its international prefix (a national number starting with '0' behind a
// national prefix '0'); a number sent without a national prefix that starts with one is read as having it.

export interface NumberRules {
  /** How the provider writes numbers: 'e164' (+15551234567), 'international' (15551234567, no plus),
   *  'national' (the national number for numbers of `countryCode`, with `nationalPrefix` in front when set). */
  format: 'e164' | 'international' | 'national';
  /** Digits, 1-3, not starting with 0; required for 'national' and only used there. */
  countryCode: string | null;
  /** Digits, e.g. '0' (UK 020…) or '1' (US); only with 'national'. */
  nationalPrefix: string | null;
  /** Digits, e.g. '00' or '011': how a 'national' provider writes numbers of other countries (without it, they are
   *  sent in E.164); only with 'national'. */
  internationalPrefix: string | null;
  /** Digits, '#' and '*', at most 16 (e.g. '1234#' or '9'): prepended to the request-URI user on the way out,
   *  stripped from it on the way in; never on caller ID. */
  techPrefix: string | null;
}

/** The default: the carrier takes and sends E.164 and needs no prefix. */
export const E164_RULES: NumberRules = Object.freeze({
  format: 'e164', countryCode: null, nationalPrefix: null, internationalPrefix: null, techPrefix: null,
});

/** Which user part a number is in: the tech prefix belongs to the request URI alone. */
export type NumberPart = 'request-uri' | 'caller-id';

/** The platform's E.164 (the API's schema pattern): country codes never start with 0. */
const E164 = /^\+[1-9]\d{1,14}$/;
/** Fewer digits than this, once prefixes are removed, is an extension or short code, not a number. */
const MIN_DIGITS = 6;
const MAX_TECH_PREFIX = 16;
const MAX_DIAL_PREFIX = 6;

/** E.164 → the provider's format; non-numbers pass unchanged. The request URI gets the tech prefix either way. */
export function toCarrierNumber(e164: string, rules: NumberRules, part: NumberPart): string {
  let written = e164;
  if (E164.test(e164) && rules.format === 'international') written = e164.slice(1);
  if (E164.test(e164) && rules.format === 'national') {
    const own = rules.countryCode !== null && e164.startsWith(`+${rules.countryCode}`);
    if (own) written = (rules.nationalPrefix ?? '') + e164.slice(1 + rules.countryCode!.length);
    else if (rules.internationalPrefix !== null) written = rules.internationalPrefix + e164.slice(1);
  }
  return part === 'request-uri' && rules.techPrefix !== null ? rules.techPrefix + written : written;
}

/** The provider's format → E.164 where it reads as a number; otherwise unchanged (less a request URI's tech prefix). */
export function fromCarrierNumber(written: string, rules: NumberRules, part: NumberPart): string {
  const tech = part === 'request-uri' ? rules.techPrefix : null;
  const user = tech !== null && written.startsWith(tech) && written.length > tech.length ? written.slice(tech.length) : written;
  if (!/^\d+$/.test(user)) return user; // '+…' stays as it is; names and anything with other characters too
  let digits = user; // the number once the prefixes are gone
  let e164 = `+${user}`;
  if (rules.format === 'national') {
    const { countryCode, nationalPrefix: np, internationalPrefix: ip } = rules;
    if (ip !== null && user.startsWith(ip)) {
      digits = user.slice(ip.length);
      e164 = `+${digits}`;
    } else {
      digits = np !== null && user.startsWith(np) ? user.slice(np.length) : user;
      e164 = `+${countryCode ?? ''}${digits}`;
    }
  }
  return digits.length >= MIN_DIGITS && E164.test(e164) ? e164 : user;
}

/** Why these rules are unusable, as a short sentence naming the field, or null. */
export function numberRulesProblem(rules: NumberRules): string | null {
  const { format, countryCode, nationalPrefix, internationalPrefix, techPrefix } = rules;
  if (format !== 'e164' && format !== 'international' && format !== 'national') {
    return "format must be 'e164', 'international' or 'national'";
  }
  if (format === 'national' && countryCode === null) return "countryCode is required for the 'national' format";
  if (format !== 'national') {
    // Unused fields that look meaningful mislead; and a prefix read off bare digits would garble 'international' ones.
    const unused = (['countryCode', 'nationalPrefix', 'internationalPrefix'] as const).find((f) => rules[f] !== null);
    if (unused !== undefined) return `${unused} is only used with the 'national' format`;
  }
  if (countryCode !== null && !/^[1-9]\d{0,2}$/.test(countryCode)) return 'countryCode must be 1-3 digits, not starting with 0';
  for (const [field, value] of [['nationalPrefix', nationalPrefix], ['internationalPrefix', internationalPrefix]] as const) {
    // Digits only: they are dialled as part of the number, and inbound they are read off an all-digit user part.
    if (value !== null && !new RegExp(`^\\d{1,${MAX_DIAL_PREFIX}}$`).test(value)) {
      return `${field} must be 1-${MAX_DIAL_PREFIX} digits (or null for none)`;
    }
  }
  if (nationalPrefix !== null && internationalPrefix !== null && nationalPrefix.startsWith(internationalPrefix)) {
    // The international prefix is looked for first, so such a national prefix could never be read.
    return 'nationalPrefix must not start with the internationalPrefix';
  }
  if (techPrefix !== null && !/^[\d#*]+$/.test(techPrefix)) return 'techPrefix may only hold digits, # and * (or be null for none)';
  if (techPrefix !== null && techPrefix.length > MAX_TECH_PREFIX) return `techPrefix is longer than ${MAX_TECH_PREFIX} characters`;
  return null;
}
