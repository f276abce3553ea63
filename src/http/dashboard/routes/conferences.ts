import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { queryOf, sendPage, viewerOf, type Dashboard } from '../context.js';
import { errorView } from '../views/auth.js';
import { conferencesView, conferenceView, conferenceLive } from '../views/conferences.js';
import type { Conference, ParticipantChanges } from '../../../conferences/repo.js';
import type { HoldSource } from '../../../calls/hold-audio.js';

const SID = /^CF[0-9a-f]{32}$/;
const CALL_SID = /^CA[0-9a-f]{32}$/;
const LISTED = 50;

type ConfRequest = FastifyRequest<{ Params: { sid: string } }>;
type PartRequest = FastifyRequest<{ Params: { sid: string; callSid: string; action: string } }>;

/** Participant buttons: each posts one change, as the API's participant update would. */
const ACTIONS: Record<string, ParticipantChanges | 'remove'> = {
  mute: { muted: true }, unmute: { muted: false }, hold: { hold: true }, unhold: { hold: false }, remove: 'remove',
};

export function conferenceRoutes(app: FastifyInstance, d: Dashboard): void {
  const repo = d.store.conferences;
  const service = d.callServices.conferences;

  // Another account's conference answers exactly like a nonexistent one.
  async function load(req: ConfRequest, reply: FastifyReply): Promise<Conference | undefined> {
    const c = SID.test(req.params.sid) ? await repo.getForAccount(viewerOf(req).account.id, req.params.sid) : undefined;
    if (!c) void sendPage(reply, errorView(404, 'There is no such conference on this account.', viewerOf(req)), 404);
    return c;
  }
  const live = async (req: ConfRequest, c: Conference) => conferenceLive(viewerOf(req), c,
    await Promise.all((await repo.participants(c.sid)).map(async (p) => ({ p, call: await d.store.calls.get(p.callSid) }))));
  // A refused action: the page again, with the reason where the outcome of a button is shown.
  const refuse = async (req: ConfRequest, reply: FastifyReply, c: Conference, status: number, problem: string) =>
    sendPage(reply, conferenceView(viewerOf(req), c, await live(req, c), problem), status);

  app.get('/conferences', async (req, reply) => {
    const v = viewerOf(req);
    // Open ones first, however old (they are what a person acts on), then the most recent completed ones.
    const recent = (status: Conference['status']) => repo.list(v.account.id, { status, beforeId: null, limit: LISTED });
    const open = [...await recent('in-progress'), ...await recent('init')].sort((a, b) => b.id - a.id);
    const listed = [...open, ...await recent('completed')];
    return sendPage(reply, conferencesView(v, await Promise.all(listed.map(async (c) => ({ c, count: await repo.countInProgress(c.sid) })))));
  });

  app.get<{ Params: { sid: string } }>('/conferences/:sid', async (req, reply) => {
    const c = await load(req, reply);
    return c ? sendPage(reply, conferenceView(viewerOf(req), c, await live(req, c), undefined, queryOf(req).done)) : reply;
  });

  // The page's live part alone, fetched by its script every 2 s.
  app.get<{ Params: { sid: string } }>('/conferences/:sid/live', async (req, reply) => {
    const c = await load(req, reply);
    return c ? sendPage(reply, await live(req, c)) : reply;
  });

  app.post<{ Params: { sid: string } }>('/conferences/:sid/end', async (req, reply) => {
    const c = await load(req, reply);
    if (!c) return reply;
    if (c.status === 'completed') return refuse(req, reply, c, 409, 'This conference has already ended.');
    await service.end(c.sid, 'conference-ended-via-api');
    return reply.redirect(`/dashboard/conferences/${c.sid}?done=conference-ended`, 303);
  });

  // The API's rules: nothing changes on an ended conference or a participant that has left; holding plays the
  // participant's hold_url when it has one (fetched first, so audio or a document that cannot be used refuses the hold).
  app.post<{ Params: { sid: string; callSid: string; action: string } }>('/conferences/:sid/participants/:callSid/:action', async (req: PartRequest, reply) => {
    const c = await load(req, reply);
    if (!c) return reply;
    const action = ACTIONS[req.params.action];
    const p = CALL_SID.test(req.params.callSid) ? await repo.participant(c.sid, req.params.callSid) : undefined;
    if (!action || !p) return sendPage(reply, errorView(404, 'There is no such participant or action.', viewerOf(req)), 404);
    if (c.status === 'completed') return refuse(req, reply, c, 409, 'This conference has ended.');
    if (p.status === 'completed') return refuse(req, reply, c, 409, 'This participant has left the conference.');
    if (action === 'remove') {
      await service.removeParticipant(c.sid, p.callSid);
      return reply.redirect(`/dashboard/conferences/${c.sid}?done=participant-removed`, 303);
    }
    let holdAudio: HoldSource | undefined;
    if (action.hold && !p.hold && p.holdUrl) {
      const got = await service.holdSource(c.sid, p.holdUrl, p.callSid);
      if (got && !got.ok) return refuse(req, reply, c, 422, `The participant's hold audio (${p.holdUrl}) could not be used (${got.code}): ${got.reason}. Not put on hold.`);
      holdAudio = got?.source;
    }
    await service.updateParticipant(c.sid, p.callSid, action, holdAudio);
    return reply.redirect(`/dashboard/conferences/${c.sid}?done=participant-updated`, 303);
  });
}
