import type { OriginateTarget } from '../engine/port.js';
import { detectFormat, formatIssues, MarkupError, parseMarkup, sipUrisOf, streamUrlsOf, targetUrlsOf, type MarkupFormat, type Verb, type VoiceBook } from '../markup/index.js';
import { customerUrlProblem, type SipStaticCheck, type SipTargetPolicy, type UrlCheck } from '../net/index.js';
import { E164 } from '../numbers/settings.js';
import { checkCallerId } from '../numbers/caller-id.js';
import type { Store } from '../repositories.js';
import type { FieldErrors } from '../field-errors.js';
import type { CallCreateInput } from './schemas/call.js';
import type { PlaceMarkupCall } from '../flows/outbound.js';
import { clientTargetProblem } from '../calls/sip-targets.js';
import { machineDetectionProblem, machineDetectionSettings } from './machine-detection-input.js';

const SIP_URI = /^sips?:[^\s@]+@[^\s]+$|^sips?:[^\s@]+$/;
const CLIENT = /^client:[A-Za-z0-9_.@-]{1,128}$/;

/** What `to` names: an E.164 number, a sip:/sips: URI or client:<identity> (a trunk number when one is given). */
export function targetFor(to: string, trunkEndpoint: string | null): OriginateTarget | null {
  if (trunkEndpoint) return E164.test(to) || /^[0-9*#+]{1,32}$/.test(to) ? { kind: 'trunk', endpointName: trunkEndpoint, number: to } : null;
  if (E164.test(to)) return { kind: 'number', number: to };
  if (SIP_URI.test(to)) return { kind: 'sip', uri: to };
  if (CLIENT.test(to)) return { kind: 'client', identity: to.slice('client:'.length) };
  return null;
}

/**
 * `to` as the target of a call the platform places for a customer (a conference participant, a supervisor): an
 * E.164 number, a sip: URI that the SIP target policy does not refuse, or client:<identity> naming one of the
 * account's seats; else why not.
 */
export async function calledTarget(
  services: { sip: Pick<SipTargetPolicy, 'vet'>; store: Pick<Store, 'trunks'> }, accountId: number, to: string,
): Promise<{ ok: true; target: OriginateTarget } | { ok: false; problem: string }> {
  const target = targetFor(to, null);
  if (!target) return { ok: false, problem: 'The to parameter must be an E.164 number, a sip: URI or client:<identity>.' };
  if (target.kind === 'sip') {
    const vet = await services.sip.vet(target.uri);
    if (!vet.ok && !vet.unresolvable) return { ok: false, problem: `The SIP destination ${target.uri} is refused: ${vet.reason}.` };
  }
  const client = target.kind === 'client' ? await clientTargetProblem(services.store, accountId, target.identity) : null;
  if (client) return { ok: false, problem: `${client}.` };
  return { ok: true, target };
}

/**
 * The target policy as a request sees it: URLs in markup, customer callback URLs (`url`, `status_callback`:
 * the https rule), and SIP URIs before their names are resolved.
 */
export interface PlacementChecks {
  url(url: string): UrlCheck;
  callback(url: string): UrlCheck;
  /** Media stream peers (<Connect>/<Start> <Stream>): wss:// under the customer-URL rule. */
  stream(url: string): UrlCheck;
  sip(uri: string): SipStaticCheck;
  /** The voices <Say> may name: the built-in ones and the account's. */
  voices: VoiceBook;
}

/**
 * Inline markup as a request gives it (a placed call's, a redirect's): parsed by the linter, and every URL, stream
 * URL and SIP destination in it through the target policy. `problems` says what is wrong, one sentence each.
 */
export function checkInlineMarkup(text: string, checks: Omit<PlacementChecks, 'callback'>): { ok: true; verbs: Verb[]; format: MarkupFormat } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  let verbs: Verb[];
  let format: MarkupFormat;
  try {
    format = detectFormat(text);
    verbs = parseMarkup(text, format, { voices: checks.voices });
  } catch (err) {
    if (!(err instanceof MarkupError)) throw err;
    return { ok: false, problems: [formatIssues(err.issues)] };
  }
  for (const url of targetUrlsOf(verbs)) {
    const check = checks.url(url);
    if (!check.ok) problems.push(`The URL ${url} is refused: ${check.reason}.`);
  }
  for (const url of streamUrlsOf(verbs)) {
    const check = checks.stream(url);
    if (!check.ok) problems.push(`The stream URL ${url} is refused (${check.code}): ${check.reason}.`);
  }
  for (const uri of sipUrisOf(verbs)) {
    const check = checks.sip(uri);
    if (!check.ok) problems.push(`The SIP destination ${uri} is refused: ${check.reason}.`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, verbs, format };
}

/**
 * Checks a place-call request against the account's own state (its numbers and trunks) and turns it into a
 * placement. Everything wrong is reported at once, keyed by field, before anything is dialled.
 */
export async function toPlacement(store: Store, accountId: number, body: CallCreateInput, checks: PlacementChecks): Promise<{ ok: true; placement: PlaceMarkupCall } | { ok: false; errors: FieldErrors }> {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);

  const caller = E164.test(body.from) ? await checkCallerId(store.numbers, accountId, body.from) : null;
  if (!caller) add('from', 'The from field must be a number of this account written exactly as the dashboard shows it, e.g. +14155550100.');
  else if (!caller.ok) add('from', `${caller.problem}.`);
  const number = caller?.ok ? caller.number : undefined;

  let trunkEndpoint: string | null = null;
  if (body.trunk_id !== undefined) {
    const trunk = await store.trunks.getForAccount(accountId, body.trunk_id);
    if (!trunk) add('trunk_id', 'The trunk does not exist on this account.');
    else if (trunk.status !== 'active') add('trunk_id', `The trunk is ${trunk.status}; calls can only go through an active trunk.`);
    else trunkEndpoint = trunk.endpoint_name;
  }
  const target = targetFor(body.to, trunkEndpoint);
  if (!target) add('to', 'The to field must be an E.164 number, a sip: URI or client:<identity>.');
  else if (target.kind === 'sip') {
    const sip = checks.sip(target.uri);
    if (!sip.ok) add('to', `The SIP destination ${target.uri} is refused: ${sip.reason}.`);
  } else if (target.kind === 'client') {
    const client = await clientTargetProblem(store, accountId, target.identity);
    if (client) add('to', `${client}.`);
  }

  for (const field of ['url', 'status_callback'] as const) {
    const value = body[field];
    const check = value === undefined ? null : checks.callback(value);
    if (check && !check.ok) add(field, customerUrlProblem(field, check));
  }

  const detection = machineDetectionProblem(body);
  if (detection) add(detection.field, detection.message);

  let markup: PlaceMarkupCall['markup'] | null = null;
  if ((body.url === undefined) === (body.markup === undefined)) add('url', 'Give either url or markup (one of them).');
  else if (body.url !== undefined) markup = { kind: 'url', url: body.url, method: body.method ?? 'POST', format: 'xml' };
  else {
    const inline = checkInlineMarkup(body.markup!, checks);
    if (inline.ok) markup = { kind: 'inline', verbs: inline.verbs, format: inline.format };
    else inline.problems.forEach((problem) => add('markup', problem));
  }
  if (Object.keys(errors).length > 0 || !target || !markup || !number) return { ok: false, errors };

  const immutable = number.settings.recording.immutable;
  return {
    ok: true,
    placement: {
      accountId, from: body.from, to: body.to, target, numberId: number.id, trunkId: body.trunk_id ?? null, markup,
      timeoutMs: (body.timeout ?? 60) * 1000,
      callback: body.status_callback
        ? { url: body.status_callback, method: body.status_callback_method ?? 'POST', events: new Set((body.status_callback_event ?? 'completed').trim().split(/\s+/)) }
        : null,
      record: body.record ? { tracks: 'both', dualChannel: true, immutable, callbackUrl: number.settings.recording.callback_url } : null,
      machineDetection: machineDetectionSettings(body),
    },
  };
}
