import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { createReadStream, statSync } from 'node:fs';
import type { PlatformServices } from '../platform-services.js';
import type { ActiveRecording, CallSession } from '../../calls/session.js';
import { EngineError } from '../../engine/port.js';
import type { RecordingRecord } from '../../store/recordings.js';
import { errors } from '../errors.js';
import { checkCustomerUrl, customerUrlProblem } from '../../net/customer-url.js';
import { RecordingStartBody, RecordingSummary, RecordingUpdateBody, type RecordingStartInput, type RecordingUpdateInput } from '../schemas/call.js';
import { recordingView } from './call-views.js';
import { loadCall } from './calls.js';
import { authErrors, notFoundError, validationError } from './error-responses.js';
import type { CallForwarding } from '../cluster/forwarding.js';
import { finishTranscription } from '../../calls/transcription.js';
import { recordingTranscriber } from '../../speech/recording-transcriber.js';

const tags = ['Recordings (live)'];
const security = [{ bearerAuth: [] }];
const live409 = { $ref: 'LiveError#' };

/** Engine refusals become 502 with what the engine said; anything else is ours and stays a 500. */
async function engineCommand<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof EngineError) throw errors.engineRejected(err.message, err.engineStatus, err.engineBody);
    throw err;
  }
}

export async function recordingRoutes(app: FastifyInstance, deps: { services: PlatformServices; forwarding: CallForwarding }): Promise<void> {
  const { services } = deps;
  const { store } = services;
  const view = (r: RecordingRecord) => recordingView(r, services.publicBaseUrl);

  /** The call's session in this process; null when the call is carried by another node, which answered (forwarding). */
  async function liveSession(req: FastifyRequest<{ Params: { callSid: string } }>, reply: FastifyReply): Promise<CallSession | null> {
    const call = await loadCall(services, req);
    if (!req.account.recordingControls) throw errors.recordingControlsOff();
    if (await deps.forwarding.elsewhere(req, reply, call)) return null;
    const session = services.watch.live(call.sid);
    if (!session || call.status !== 'in-progress' || !session.leg) throw errors.callNotInProgress(call.status);
    // Hung up, its final state still being written (its recordings closing): no longer a live call.
    if (session.ended) throw errors.callNotInProgress('completed');
    return session;
  }

  app.get<{ Params: { callSid: string } }>('/api/calls/:callSid/recordings', {
    schema: { tags, security, summary: "A call's recordings", params: Type.Object({ callSid: Type.String() }), response: { 200: Type.Object({ data: Type.Array(RecordingSummary) }), ...notFoundError, ...authErrors } },
  }, async (req) => ({ data: (await store.recordings.listForCall((await loadCall(services, req)).sid)).map(view) }));

  app.post<{ Params: { callSid: string }; Body: RecordingStartInput }>('/api/calls/:callSid/recordings', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: {
      tags, security, summary: 'Start recording a live call', params: Type.Object({ callSid: Type.String() }), body: RecordingStartBody,
      response: { 201: RecordingSummary, 409: live409, 502: { type: 'object', additionalProperties: true }, 503: live409, ...notFoundError, ...validationError, ...authErrors },
    },
  }, async (req, reply) => {
    const callback = req.body.recording_status_callback;
    // A customer callback URL like any other: the one https rule (src/net/customer-url.ts), checked before the call's state.
    const check = callback === undefined ? null : checkCustomerUrl(callback, services.urls);
    if (check && !check.ok) throw errors.validation({ recording_status_callback: [customerUrlProblem('recording_status_callback', check)] });
    const session = await liveSession(req, reply);
    if (!session) return reply;
    const number = session.call.numberId === null ? undefined : await store.numbers.getById(session.call.numberId);
    const tracks = req.body.tracks ?? 'both';
    const active = await engineCommand(() => session.startRecording({
      source: 'call', tracks, dualChannel: tracks === 'both' && (req.body.dual_channel ?? true),
      callbackUrl: callback ?? number?.settings.recording.callback_url ?? null,
      immutable: number?.settings.recording.immutable ?? false,
    }));
    return reply.status(201).send(view(active.record));
  });

  app.post<{ Params: { callSid: string; recordingSid: string }; Body: RecordingUpdateInput }>('/api/calls/:callSid/recordings/:recordingSid', {
    schema: {
      tags, security, summary: 'Pause, resume or stop a recording of a live call', params: Type.Object({ callSid: Type.String(), recordingSid: Type.String() }),
      body: RecordingUpdateBody, response: { 200: RecordingSummary, 409: live409, 502: { type: 'object', additionalProperties: true }, 503: live409, ...notFoundError, ...validationError, ...authErrors },
    },
  }, async (req, reply) => {
    const record = await store.recordings.getForAccount(req.account.id, req.params.recordingSid);
    if (!record || record.callSid !== req.params.callSid) throw errors.notFound('Recording');
    const session = await liveSession(req, reply);
    if (!session) return reply;
    const active: ActiveRecording | undefined = session.recordings.find((r) => r.record.sid === record.sid);
    if (!active || (record.status !== 'in-progress' && record.status !== 'paused')) throw errors.recordingFinished();
    const { status } = req.body;
    if (active.immutable && status !== 'in-progress') throw errors.recordingImmutable();
    if (status === 'stopped') return view(await engineCommand(() => session.stopRecording(active)));
    await engineCommand(() => (status === 'paused' ? active.control.pause() : active.control.resume()));
    await store.recordings.setStatus(record.sid, status === 'paused' ? 'paused' : 'in-progress');
    void session.timeline(`recording-${status === 'paused' ? 'paused' : 'resumed'}`, { recording_sid: record.sid });
    return view((await store.recordings.get(record.sid))!);
  });

  // Transcribed in the background: the answer comes at once, the words in the resource when ready (docs/speech.md).
  app.post<{ Params: { recordingSid: string } }>('/api/recordings/:recordingSid/transcription', {
    schema: {
      tags, security, summary: 'Transcribe a completed recording; its transcription shows in the recording once ready',
      params: Type.Object({ recordingSid: Type.String() }), response: { 202: RecordingSummary, 409: live409, ...notFoundError, ...authErrors },
    },
  }, async (req, reply) => {
    const record = await store.recordings.getForAccount(req.account.id, req.params.recordingSid);
    if (!record) throw errors.notFound('Recording');
    if (!(await store.recordings.startTranscription(record.sid, { holdsEvent: false }))) {
      throw errors.transcriptionRefused(record.status !== 'completed'
        ? `The recording is ${record.status}; only a completed recording can be transcribed.`
        : 'A transcription of this recording is under way; its result will show in the recording.');
    }
    const started = (await store.recordings.get(record.sid))!;
    void finishTranscription(services, started, recordingTranscriber(services.speech), null)
      .catch((err: unknown) => req.log.error({ err, recordingSid: record.sid }, 'transcription failed'));
    return reply.status(202).send(view(started));
  });

  // One path for the resource and its audio: /api/recordings/RE… (JSON) and /api/recordings/RE….wav (WAV).
  app.get<{ Params: { recordingSid: string } }>('/api/recordings/:recordingSid', {
    schema: {
      tags, security, summary: 'Fetch a recording (JSON), or its audio with a .wav suffix (audio/wav)',
      params: Type.Object({ recordingSid: Type.String() }), response: { 200: RecordingSummary, 409: live409, ...notFoundError, ...authErrors },
    },
  }, async (req, reply) => {
    const wav = req.params.recordingSid.endsWith('.wav');
    const record = await store.recordings.getForAccount(req.account.id, wav ? req.params.recordingSid.slice(0, -4) : req.params.recordingSid);
    if (!record) throw errors.notFound('Recording');
    if (!wav) return view(record);
    // An absent recording serves its empty WAV (duration 0), like any finished one.
    if (record.status === 'in-progress' || record.status === 'paused') throw errors.recordingNotReady();
    let size: number;
    try {
      size = statSync(record.file).size;
    } catch {
      throw errors.notFound('Recording audio');
    }
    return reply
      .header('content-type', 'audio/wav')
      .header('content-length', String(size))
      .header('content-disposition', `inline; filename="${record.sid}.wav"`)
      .send(createReadStream(record.file));
  });
}
