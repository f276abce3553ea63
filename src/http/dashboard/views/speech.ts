import { html, type Html } from '../html.js';
import { csrfField, type FormRender } from '../forms.js';
import { actionButton } from '../layout.js';
import type { Viewer } from '../context.js';
import type { TranscriptionSetting } from '../../../speech/settings.js';
import type { VoiceSetting } from '../../../speech/voice-settings.js';
import { BUILT_IN_VOICES } from '../../../markup/index.js';
import { when } from '../format.js';

export interface SpeechViewData { transcription: TranscriptionSetting | null; offline: string | null; form: FormRender; voices: VoiceSetting | null; voicesForm: FormRender }

/** The account's speech recognizer: its OpenAI-compatible endpoint, or the offline one (docs/speech.md). */
export function speechSection(v: Viewer, d: SpeechViewData): Html {
  const t = d.transcription;
  const f = d.form;
  const now = t
    ? html`<p>Speech gathers on your calls are transcribed by <code>${t.baseUrl}</code> (model <code>${t.model}</code>, ${t.keySealed ? 'with a key' : 'without a key'}; changed ${when(t.updatedAt)}). Their audio is sent there.</p>`
    : d.offline
      ? html`<p>Speech gathers on your calls are recognized offline on the platform (${d.offline}, US English): no audio leaves it.</p>`
      : html`<p>No speech recognizer is set up: speech gathers on your calls hear nothing until you set an endpoint below.</p>`;
  return html`
    <h2>Speech recognition</h2>
    ${now}
    <form method="post" action="/dashboard/settings/speech" novalidate>${csrfField(v.csrf)}
      ${f.text('transcription_url', 'OpenAI-compatible API base URL', { placeholder: 'https://api.openai.com/v1' })}
      ${f.text('transcription_model', 'Model', { placeholder: 'whisper-1' })}
      ${f.text('transcription_api_key', t?.keySealed ? 'API key (blank keeps the stored one)' : 'API key (blank for none)', { type: 'password', autocomplete: 'off' })}
      <button type="submit">Save endpoint</button></form>
    ${t ? actionButton('/dashboard/settings/speech/remove', 'Remove endpoint', v.csrf, { danger: true, confirm: 'Remove the transcription endpoint? Speech gathers go back to the offline recognizer.' }) : ''}`;
}

/** The account's voices: the built-in ones, and those of its OpenAI-compatible speech endpoint (docs/speech.md, Voices). */
export function voicesSection(v: Viewer, d: SpeechViewData): Html {
  const s = d.voices;
  const f = d.voicesForm;
  const now = s
    ? html`<p><code>&lt;Say voice&gt;</code> may also name ${s.voices.join(', ')}: spoken by <code>${s.baseUrl}</code> (model <code>${s.model}</code>, ${s.keySealed ? 'with a key' : 'without a key'}; changed ${when(s.updatedAt)}). The words of those prompts are sent there, once each; the audio is kept on the platform.</p>`
    : html`<p><code>&lt;Say voice&gt;</code> may name the built-in voices, spoken on the platform: no text leaves it.</p>`;
  return html`
    <h2>Voices</h2>
    <p>Built-in: ${BUILT_IN_VOICES.join(', ')}.</p>
    ${now}
    <form method="post" action="/dashboard/settings/voices" novalidate>${csrfField(v.csrf)}
      ${f.text('speech_url', 'OpenAI-compatible API base URL', { placeholder: 'https://api.openai.com/v1' })}
      ${f.text('speech_model', 'Model', { placeholder: 'tts-1' })}
      ${f.text('voices', 'Voice names (commas or spaces between them)', { placeholder: 'alloy, nova' })}
      ${f.text('speech_api_key', s?.keySealed ? 'API key (blank keeps the stored one)' : 'API key (blank for none)', { type: 'password', autocomplete: 'off' })}
      <button type="submit">Save voices</button></form>
    ${s ? actionButton('/dashboard/settings/voices/remove', 'Remove endpoint', v.csrf, { danger: true, confirm: 'Remove the speech endpoint? Markup naming its voices is refused from then on.' }) : ''}`;
}
