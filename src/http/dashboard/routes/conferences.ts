import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendPage, viewerOf, type Dashboard } from '../context.js';
import { errorView } from '../views/auth.js';
import { conferencesView, conferenceView, participantsTable } from '../views/conferences.js';
import type { Conference, ParticipantChanges } from '../../../conferences/repo.js';

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
  function load(req: ConfRequest, reply: FastifyReply): Conference | undefined {
    const c = SID.test(req.params.sid) ? repo.getForAccount(viewerOf(req).account.id, req.params.sid) : undefined;
    if (!c) void sendPage(reply, errorView(404, 'There is no such conference on this account.', viewerOf(req)), 404);
    return c;
  }
  const table = (req: ConfRequest, c: Conference) => participantsTable(viewerOf(req), c,
    repo.participants(c.sid).map((p) => ({ p, call: d.store.calls.get(p.callSid) })));

  app.get('/conferences', async (req, reply) => {
    const v = viewerOf(req);
    // Open ones first (they are what a person acts on), then the most recent.
    const all = repo.list(v.account.id, { beforeId: null, limit: LISTED });
    const ordered = [...all.filter((c) => c.status !== 'completed'), ...all.filter((c) => c.status === 'completed')];
    return sendPage(reply, conferencesView(v, ordered.map((c) => ({ c, count: repo.countInProgress(c.sid) }))));
  });

  app.get<{ Params: { sid: string } }>('/conferences/:sid', async (req, reply) => {
    const c = load(req, reply);
    return c ? sendPage(reply, conferenceView(viewerOf(req), c, table(req, c))) : reply;
  });

  app.get<{ Params: { sid: string } }>('/conferences/:sid/participants', async (req, reply) => {
    const c = load(req, reply);
    return c ? sendPage(reply, table(req, c)) : reply;
  });

  app.post<{ Params: { sid: string } }>('/conferences/:sid/end', async (req, reply) => {
    const c = load(req, reply);
    if (!c) return reply;
    if (c.status === 'completed') return sendPage(reply, conferenceView(viewerOf(req), c, table(req, c), 'This conference has already ended.'), 409);
    await service.end(c.sid, 'conference-ended-via-api');
    return reply.redirect(`/dashboard/conferences/${c.sid}?done=conference-ended`, 303);
  });

  app.post<{ Params: { sid: string; callSid: string; action: string } }>('/conferences/:sid/participants/:callSid/:action', async (req: PartRequest, reply) => {
    const c = load(req, reply);
    if (!c) return reply;
    const action = ACTIONS[req.params.action];
    const p = CALL_SID.test(req.params.callSid) ? repo.participant(c.sid, req.params.callSid) : undefined;
    if (!action || !p) return sendPage(reply, errorView(404, 'There is no such participant or action.', viewerOf(req)), 404);
    const refusal = c.status === 'completed' ? 'This conference has ended.' : p.status === 'completed' ? 'This participant has left the conference.' : null;
    if (refusal) return sendPage(reply, conferenceView(viewerOf(req), c, table(req, c), refusal), 409);
    if (action === 'remove') await service.removeParticipant(c.sid, p.callSid);
    else await service.updateParticipant(c.sid, p.callSid, action);
    return reply.redirect(`/dashboard/conferences/${c.sid}?done=${action === 'remove' ? 'participant-removed' : 'participant-updated'}`, 303);
  });
}
