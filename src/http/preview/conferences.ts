// /v1/conferences: list, fetch, end or announce; participants list, add (places the call), update, remove.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { PlatformServices } from '../platform-services.js';
import type { CallDispatcher } from '../../flows/dispatcher.js';
import type { CallForwarding } from '../cluster/forwarding.js';
import type { CallsPerSecondCap } from '../../calls/cps-limiter.js';
import type { Account } from '../../store/accounts.js';
import type { Conference, Participant, ParticipantChanges } from '../../conferences/repo.js';
import type { HoldSource } from '../../calls/hold-audio.js';
import type { Beep } from '../../conferences/joins.js';
import { placeCall } from '../../calls/outbound.js';
import { machineDetectionProblem, machineDetectionSettings } from '../machine-detection-input.js';
import { newSid } from '../../crypto/tokens.js';
import { checkCustomerUrl, customerUrlProblem } from '../../net/customer-url.js';
import { errors, previewErrors } from '../errors.js';
import { previewErrorResponses } from '../schemas/preview.js';
import { Name } from '../schemas/common.js';
import { NAME_LIMITS } from '../../names/index.js';
import { PREVIEW_PAGE_DEFAULT } from '../schemas/preview.js';
import {
  Conference as ConferenceSchema, ConferenceList, ConferenceListQuery, ConferenceUpdateBody, Participant as ParticipantSchema, ParticipantCreateBody,
  ParticipantList, ParticipantUpdateBody, type ConferenceUpdateInput, type ParticipantCreateInput, type ParticipantUpdateInput,
} from '../schemas/preview-conferences.js';
import { callerNumber, calledTarget } from './call-parties.js';
import { CALL_SID, CONFERENCE_SID, flag } from './conference-input.js';
import { acceptFormBodies } from '../form-bodies.js';

interface Deps { services: PlatformServices; dispatcher: CallDispatcher; cps: CallsPerSecondCap; forwarding: CallForwarding }

const tags = ['Conferences (preview)'];
const security = [{ bearerAuth: [] }];
const ConferenceRef = Name(NAME_LIMITS.conference, 'The conference sid, or its friendly name (the open conference of that name).');
const ConfParams = Type.Object({ sid: ConferenceRef });
const PartParams = Type.Object({ sid: ConferenceRef, callSid: Type.String() });
const CURSOR = 'cur_';
/** How long an added participant's phone may ring. */
const RING_TIMEOUT_MS = 60_000;

const BEEPS: readonly Beep[] = ['true', 'false', 'onEnter', 'onExit'];

function beepOf(value: string | undefined): Beep {
  if (value === undefined) return 'true';
  if ((BEEPS as readonly string[]).includes(value)) return value as Beep;
  throw previewErrors.parameterInvalid('beep', `The beep parameter must be one of ${BEEPS.join(', ')}, got ${JSON.stringify(value)}.`);
}

export async function conferenceRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const { services, dispatcher, cps } = deps;
  const { store } = services;
  const repo = store.conferences;
  const conferences = services.conferences;
  acceptFormBodies(app);

  const conferenceView = async (c: Conference) => ({
    sid: c.sid, friendly_name: c.friendlyName, status: c.status, participant_count: await repo.countInProgress(c.sid), record: c.record,
    end_reason: c.endReason, date_created: c.createdAt, date_updated: c.updatedAt,
  });
  const participantView = (p: Participant) => ({
    call_sid: p.callSid, conference_sid: p.conferenceSid, status: p.status, muted: p.muted, hold: p.hold, hold_url: p.holdUrl,
    coaching: p.coaching, call_sid_to_coach: p.callSidToCoach, start_conference_on_enter: p.startConferenceOnEnter,
    end_conference_on_exit: p.endConferenceOnExit, answered_by: p.answeredBy, date_created: p.createdAt, date_updated: p.updatedAt,
  });

  /** By sid, or by friendly name (the account's open conference of that name); another account's is not found. */
  async function load(account: Account, ref: string): Promise<Conference> {
    const conf = CONFERENCE_SID.test(ref) ? await repo.getForAccount(account.id, ref) : await repo.openByName(account.id, ref);
    if (!conf) throw errors.notFound('Conference');
    return conf;
  }
  async function loadParticipant(req: FastifyRequest<{ Params: { sid: string; callSid: string } }>): Promise<{ conf: Conference; p: Participant }> {
    const conf = await load(req.account, req.params.sid);
    const p = CALL_SID.test(req.params.callSid) ? await repo.participant(conf.sid, req.params.callSid) : undefined;
    if (!p) throw errors.notFound('Participant');
    return { conf, p };
  }
  /** A participant's leg is held by the node carrying its call: a change to it is made there (forwarding). */
  async function carriedElsewhere(req: FastifyRequest, reply: FastifyReply, p: Participant): Promise<boolean> {
    if (p.status === 'completed') return false;
    const call = await store.calls.get(p.callSid);
    return call !== undefined && deps.forwarding.elsewhere(req, reply, call);
  }
  /** The request, sent to the node carrying a participant in the room (the first one another node carries). */
  async function announcedElsewhere(req: FastifyRequest, reply: FastifyReply, conf: Conference): Promise<boolean> {
    for (const p of await repo.participants(conf.sid, { openOnly: true })) {
      if (p.status === 'in-progress' && await carriedElsewhere(req, reply, p)) return true;
    }
    return false;
  }
  const open = (conf: Conference) => {
    if (conf.status === 'completed') throw previewErrors.conflict('conference_completed', `Conference ${conf.sid} has completed; a new one starts when a participant is added to its name.`);
  };
  /** What `url` gives (audio or a hold document), asked for as a call in the room; undefined when nobody is in it. */
  async function holdSource(conf: Conference, url: string, param: string, callSid?: string): Promise<HoldSource | undefined> {
    const got = await conferences.holdSource(conf.sid, url, callSid);
    if (got && !got.ok) throw previewErrors.parameterInvalid(param, `The ${param} could not be used (${got.code}): ${got.reason}.`);
    return got?.source;
  }

  app.get<{ Querystring: { status?: string; friendly_name?: string; page_size?: number; cursor?: string } }>('/v1/conferences', {
    schema: { tags, security, summary: 'List conferences, most recent first', querystring: ConferenceListQuery, response: { 200: ConferenceList, ...previewErrorResponses() } },
  }, async (req) => {
    const q = req.query;
    const pageSize = q.page_size ?? PREVIEW_PAGE_DEFAULT;
    let beforeId: number | null = null;
    if (q.cursor) {
      const decoded = q.cursor.startsWith(CURSOR) ? Buffer.from(q.cursor.slice(CURSOR.length), 'base64url').toString('utf8') : '';
      if (!/^\d{1,15}$/.test(decoded)) throw previewErrors.parameterInvalid('cursor', 'The cursor parameter is not a cursor this API returned.');
      beforeId = Number(decoded);
    }
    const rows = await repo.list(req.account.id, {
      ...(q.status ? { status: q.status as Conference['status'] } : {}), ...(q.friendly_name !== undefined ? { friendlyName: q.friendly_name } : {}),
      beforeId, limit: pageSize + 1,
    });
    const page = rows.slice(0, pageSize);
    const more = rows.length > pageSize;
    return {
      conferences: await Promise.all(page.map(conferenceView)),
      meta: { page_size: pageSize, next_cursor: more ? CURSOR + Buffer.from(String(page.at(-1)!.id)).toString('base64url') : null },
    };
  });

  app.get<{ Params: { sid: string } }>('/v1/conferences/:sid', {
    schema: { tags, security, summary: 'Fetch a conference', params: ConfParams, response: { 200: ConferenceSchema, ...previewErrorResponses(404) } },
  }, async (req) => conferenceView(await load(req.account, req.params.sid)));

  app.post<{ Params: { sid: string }; Body: ConferenceUpdateInput }>('/v1/conferences/:sid', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: {
      tags, security, summary: 'End a conference (status=completed) or play an announcement to it (announce_url)',
      params: ConfParams, body: ConferenceUpdateBody, response: { 200: ConferenceSchema, ...previewErrorResponses(404, 409) },
    },
  }, async (req, reply) => {
    const conf = await load(req.account, req.params.sid);
    const b = req.body;
    if (b.status === undefined && b.announce_url === undefined) throw previewErrors.parameterMissing('status', 'Give status=completed or an announce_url.');
    if (b.status !== undefined && b.status !== 'completed') throw previewErrors.parameterInvalid('status', 'The only status a conference can be set to is completed.');
    open(conf);
    // An announcement plays through a member in the room: made by a node carrying one when this one carries none.
    if (b.announce_url !== undefined && !conferences.hasMembersHere(conf.sid) && await announcedElsewhere(req, reply, conf)) return reply;
    const announcement = b.announce_url === undefined ? undefined : await holdSource(conf, b.announce_url, 'announce_url');
    if (announcement) conferences.announce(conf.sid, announcement);
    if (b.status === 'completed') await conferences.end(conf.sid, 'conference-ended-via-api');
    return conferenceView((await repo.get(conf.sid))!);
  });

  app.get<{ Params: { sid: string } }>('/v1/conferences/:sid/participants', {
    schema: { tags, security, summary: 'List a conference\'s participants, in the order they were added', params: ConfParams, response: { 200: ParticipantList, ...previewErrorResponses(404) } },
  }, async (req) => ({ participants: (await repo.participants((await load(req.account, req.params.sid)).sid)).map(participantView) }));

  app.post<{ Params: { sid: string }; Body: ParticipantCreateInput }>('/v1/conferences/:sid/participants', {
    schema: {
      tags, security, summary: 'Add a participant: the call is placed and joined once answered (by name: the first add creates the conference)',
      params: ConfParams, body: ParticipantCreateBody, response: { 201: ParticipantSchema, ...previewErrorResponses(404, 409) },
    },
  }, async (req, reply) => {
    const b = req.body;
    const opts = {
      muted: flag(b.muted, 'muted') ?? false,
      startConferenceOnEnter: flag(b.start_conference_on_enter, 'start_conference_on_enter') ?? true,
      endConferenceOnExit: flag(b.end_conference_on_exit, 'end_conference_on_exit') ?? false,
      beep: beepOf(b.beep),
    };
    const number = await callerNumber(services, req.account.id, b.from);
    const target = await calledTarget(services, req.account.id, b.to);
    if (b.status_callback !== undefined) {
      const check = checkCustomerUrl(b.status_callback, services.urls);
      if (!check.ok) throw previewErrors.parameterInvalid('status_callback', customerUrlProblem('status_callback', check));
    }
    const detection = machineDetectionProblem(b);
    if (detection) throw previewErrors.parameterInvalid(detection.field, detection.message);
    // Every refusal comes before anything is created or changed: a refused add leaves no conference behind.
    const ref = req.params.sid;
    const existing = CONFERENCE_SID.test(ref) ? await load(req.account, ref) : await repo.openByName(req.account.id, ref);
    if (existing) {
      open(existing);
      if ((await repo.participants(existing.sid, { openOnly: true })).length >= existing.maxParticipants) {
        throw previewErrors.conflict('conference_full', `Conference ${existing.sid} already has its maximum of ${existing.maxParticipants} participants.`);
      }
    }
    const slot = await cps.take(req.account.id, req.account.cpsCap);
    if (!slot.ok) throw errors.callsPerSecondExceeded(req.account.cpsCap, slot.retryAfterSeconds, slot.resetAt);
    const conf = existing
      ?? await conferences.openByName(req.account.id, ref, { maxParticipants: 250, record: false, ...(b.status_callback ? { statusCallback: { url: b.status_callback, method: 'POST', events: [] } } : {}) });
    if (b.status_callback) await repo.adoptStatusCallback(conf.sid, b.status_callback, 'POST');

    const callSid = newSid('CA');
    const cancel = new AbortController();
    const participant = await conferences.expect(conf, callSid, opts, cancel);
    const { done } = await placeCall(services, {
      accountId: req.account.id, from: b.from, to: b.to, target, numberId: number.id, trunkId: null, callback: null, record: null,
      timeoutMs: RING_TIMEOUT_MS, sid: callSid, signal: cancel.signal, admittedAtMs: slot.at, machineDetection: machineDetectionSettings(b),
      onAnswered: async (session, { answeredBy }) => {
        // Detection decided before the participant joins, so that the join's status callback says what answered.
        if (answeredBy) await repo.setAnsweredBy(conf.sid, callSid, answeredBy);
        await conferences.enter(session, conf.sid, opts);
        if (!session.ended) await session.hangup('conference-left');
      },
    });
    void dispatcher.track(done.then(() => conferences.placementSettled(conf.sid, callSid)));
    return reply.status(201).send(participantView(participant));
  });

  app.post<{ Params: { sid: string; callSid: string }; Body: ParticipantUpdateInput }>('/v1/conferences/:sid/participants/:callSid', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: {
      tags, security, summary: 'Mute, hold (with hold audio) or coach a participant', params: PartParams, body: ParticipantUpdateBody,
      response: { 200: ParticipantSchema, ...previewErrorResponses(404, 409, 503) },
    },
  }, async (req, reply) => {
    const { conf, p } = await loadParticipant(req);
    if (await carriedElsewhere(req, reply, p)) return reply;
    const b = req.body;
    const changes: ParticipantChanges = {};
    const muted = flag(b.muted, 'muted');
    const hold = flag(b.hold, 'hold');
    const coaching = flag(b.coaching, 'coaching');
    if (muted !== undefined) changes.muted = muted;
    if (hold !== undefined) changes.hold = hold;
    if (b.hold_url !== undefined) {
      // Checked when written, as every stored URL is; fetched when a hold starts.
      const check = services.media.check(b.hold_url);
      if (!check.ok) throw previewErrors.parameterInvalid('hold_url', `The hold_url cannot be used (${check.code}): ${check.reason}.`);
      changes.holdUrl = b.hold_url;
    }
    if (coaching !== undefined) changes.coaching = coaching;
    if (b.call_sid_to_coach !== undefined) changes.callSidToCoach = b.call_sid_to_coach;
    if (Object.keys(changes).length === 0) throw previewErrors.parameterMissing('muted', 'Give at least one of muted, hold, hold_url, coaching, call_sid_to_coach.');
    open(conf);
    if (p.status === 'completed') throw previewErrors.conflict('participant_completed', `Participant ${p.callSid} has left the conference.`);
    const coachTarget = changes.callSidToCoach ?? p.callSidToCoach;
    if (changes.coaching && !coachTarget) throw previewErrors.parameterMissing('call_sid_to_coach', 'coaching=true needs call_sid_to_coach: the participant to coach.');
    const coachSid = b.call_sid_to_coach;
    if (coachSid !== undefined) {
      const coached = CALL_SID.test(coachSid) ? await repo.participant(conf.sid, coachSid) : undefined;
      if (!coached || coached.status === 'completed' || coached.callSid === p.callSid) {
        throw previewErrors.parameterInvalid('call_sid_to_coach', 'call_sid_to_coach must be another active participant of this conference.');
      }
    }
    // Hold audio is fetched when a hold starts or its URL changes while held: a bad URL is refused before anything changes.
    const holdUrl = b.hold_url ?? p.holdUrl;
    const holding = changes.hold ?? p.hold;
    const holdAudio = holding && holdUrl && (b.hold_url !== undefined || changes.hold === true) ? await holdSource(conf, holdUrl, 'hold_url', p.callSid) : undefined;
    return participantView(await conferences.updateParticipant(conf.sid, p.callSid, changes, holdAudio));
  });

  app.delete<{ Params: { sid: string; callSid: string } }>('/v1/conferences/:sid/participants/:callSid', {
    schema: { tags, security, summary: 'Remove a participant: its leg is disconnected; the conference goes on', params: PartParams, response: { 204: { type: 'null', description: 'Removed' }, ...previewErrorResponses(404, 503) } },
  }, async (req, reply) => {
    const { conf, p } = await loadParticipant(req);
    if (await carriedElsewhere(req, reply, p)) return reply;
    if (p.status !== 'completed') await conferences.removeParticipant(conf.sid, p.callSid);
    return reply.status(204).send();
  });
}
