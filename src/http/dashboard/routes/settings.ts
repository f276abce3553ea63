import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formOf, queryOf, sendPage, viewerOf, type Dashboard, type Viewer } from '../context.js';
import { FormRender, type FieldErrors } from '../forms.js';
import { OrgSettingsError } from '../../../org/settings.js';
import { settingsView } from '../views/settings.js';
import { transcriptionProblems, voiceList, voiceProblems } from '../../../speech/settings-input.js';
import { sealedKey } from '../../../speech/endpoint-key.js';

/** Field errors as the form shows them, from the shared input rules' messages. */
const fieldErrors = (problems: Record<string, string>): FieldErrors | null =>
  Object.keys(problems).length === 0 ? null : Object.fromEntries(Object.entries(problems).map(([field, message]) => [field, [message]]));

/** An endpoint form's fields (`transcription_url`, `speech_model`…); a key left blank is not given, so the stored one stays. */
const endpointForm = (form: Record<string, string | undefined>, kind: 'transcription' | 'speech') => ({
  url: (form[`${kind}_url`] ?? '').trim(), model: (form[`${kind}_model`] ?? '').trim(), key: form[`${kind}_api_key`] || undefined,
});

export function settingsRoutes(app: FastifyInstance, d: Dashboard): void {
  const render = async (req: FastifyRequest, reply: FastifyReply, opts: { secret?: string; form?: FormRender; speechForm?: FormRender; voicesForm?: FormRender; token?: string; status?: number } = {}) => {
    const v = viewerOf(req);
    const org = {
      org: await d.store.orgSettings.get(v.account.id),
      form: opts.form ?? new FormRender({}),
      ...(opts.token ? { newInjectionToken: opts.token } : {}),
    };
    const transcription = await d.store.speechSettings.transcription(v.account.id);
    const voices = await d.store.voiceSettings.get(v.account.id);
    const speech = {
      transcription, offline: d.callServices.speech.offline,
      form: opts.speechForm ?? new FormRender({ transcription_url: transcription?.baseUrl ?? '', transcription_model: transcription?.model ?? '' }),
      voices,
      voicesForm: opts.voicesForm ?? new FormRender({ speech_url: voices?.baseUrl ?? '', speech_model: voices?.model ?? '', voices: voices?.voices.join(', ') ?? '' }),
    };
    return sendPage(reply, settingsView(v, { secret: opts.secret ?? null, notice: queryOf(req).done, org, speech }), opts.status ?? 200);
  };

  /** Runs an allow-list change; its error is shown beside the field it came from. */
  const listChange = (field: string, change: (v: Viewer, value: string) => Promise<unknown>) => async (req: FastifyRequest, reply: FastifyReply) => {
    const form = formOf(req);
    try {
      await change(viewerOf(req), form[field] ?? '');
    } catch (err) {
      if (!(err instanceof OrgSettingsError)) throw err;
      const errors: FieldErrors = { [field]: [err.message] };
      return render(req, reply, { form: new FormRender(form, errors), status: 422 });
    }
    return reply.redirect('/dashboard/settings?done=saved', 303);
  };

  app.get('/settings', async (req, reply) => render(req, reply));

  app.post('/settings/signing-secret/reveal', async (req, reply) => render(req, reply, { secret: await d.signingSecrets.get(viewerOf(req).account.id) }));

  app.post('/settings/signing-secret/rotate', async (req, reply) => {
    await d.signingSecrets.rotate(viewerOf(req).account.id);
    return reply.redirect('/dashboard/settings?done=rotated', 303);
  });

  const listedIps = d.config.devAllowLocalTargets ? 'public-or-loopback' : 'public';
  app.post('/settings/hosts', listChange('host', (v, x) => d.store.orgSettings.allowHost(v.account.id, x, listedIps)));
  app.post('/settings/hosts/remove', listChange('host', (v, x) => d.store.orgSettings.removeHost(v.account.id, x)));
  app.post('/settings/ips', listChange('cidr', (v, x) => d.store.orgSettings.allowIp(v.account.id, x)));
  app.post('/settings/ips/remove', listChange('cidr', (v, x) => d.store.orgSettings.removeIp(v.account.id, x)));

  // A blank key keeps the stored one; the key typed is never rendered back, even beside an error.
  app.post('/settings/speech', async (req, reply) => {
    const form = formOf(req);
    const v = viewerOf(req);
    const input = endpointForm(form, 'transcription');
    const errors = fieldErrors(transcriptionProblems(input, d.callServices.urls));
    if (errors) return render(req, reply, { speechForm: new FormRender({ transcription_url: input.url, transcription_model: input.model }, errors), status: 422 });
    await d.store.speechSettings.setTranscription(v.account.id, {
      baseUrl: input.url, model: input.model, ...sealedKey(d.secrets, input.key),
    });
    return reply.redirect('/dashboard/settings?done=saved', 303);
  });

  app.post('/settings/speech/remove', async (req, reply) => {
    await d.store.speechSettings.removeTranscription(viewerOf(req).account.id);
    return reply.redirect('/dashboard/settings?done=saved', 303);
  });

  app.post('/settings/voices', async (req, reply) => {
    const form = formOf(req);
    const v = viewerOf(req);
    const input = { ...endpointForm(form, 'speech'), voices: voiceList(form.voices ?? '') };
    const errors = fieldErrors(voiceProblems(input, d.callServices.urls));
    if (errors) return render(req, reply, { voicesForm: new FormRender({ speech_url: input.url, speech_model: input.model, voices: form.voices ?? '' }, errors), status: 422 });
    await d.store.voiceSettings.set(v.account.id, {
      baseUrl: input.url, model: input.model, voices: input.voices, ...sealedKey(d.secrets, input.key),
    });
    return reply.redirect('/dashboard/settings?done=saved', 303);
  });

  app.post('/settings/voices/remove', async (req, reply) => {
    await d.store.voiceSettings.remove(viewerOf(req).account.id);
    return reply.redirect('/dashboard/settings?done=saved', 303);
  });

  // The clear token is rendered in this response only; the store keeps its hash.
  app.post('/settings/injection-token', async (req, reply) =>
    render(req, reply, { token: await d.store.orgSettings.rotateInjectionToken(viewerOf(req).account.id), status: 201 }));
}
