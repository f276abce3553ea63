// One realistic example per success response of the public API, shown in /docs and /openapi.json. They are checked
// against their own response schemas by test/http/openapi.test.ts, so an example cannot drift from the API.
const at = '2026-11-24T10:15:02.118Z';
const later = '2026-11-24T10:16:44.903Z';

const trunk = {
  id: 7, status: 'active', label: 'Agent seat', client_ref: 'crm-42', endpoint_name: 'tk-ykz4x87t69pb', sip_domain: null,
  transport: 'wss', voice_webhook_url: null, voice_webhook_method: 'POST', voice_fallback_url: null, voice_fallback_method: 'POST', voice_refer_url: null, voice_refer_method: 'POST', cli_lookup_url: null, cli_lookup_method: 'POST',
  default_caller_id: '+14155550100', status_callback_url: 'https://app.example.com/trunk-status', status_callback_events: 'completed',
  status_callback_format: null, hangup_url: null, dual_channel_recording: false, allowed_caller_ids: null, created_at: at,
};
const trunkWithConnection = {
  ...trunk,
  connection: {
    sip_domain: 'sip.example.com', sip_port: '8443', transport: 'wss', wss_url: 'wss://sip.example.com:8443/',
    username: 'tk-ykz4x87t69pb', password: '05fWhc9uZ_mnaEjuFt_6YVflPc6J-C7m', secret_available: true,
  },
};
const recording = {
  sid: 'RE5f0c2a9d3b7e4f6a8c1d2e3f4a5b6c7d', call_sid: 'CA1b7f5a780bdbf97e3b4bf11c78b1a7eb', status: 'completed', source: 'call',
  conference_sid: null, tracks: 'both', channels: 2, duration: 98, immutable: false, created_at: at, completed_at: later,
  media_url: 'https://ringbase.example.com/api/recordings/RE5f0c2a9d3b7e4f6a8c1d2e3f4a5b6c7d.wav',
  transcription: null,
};
const call = {
  sid: 'CA1b7f5a780bdbf97e3b4bf11c78b1a7eb', from: '+14155550100', to: '+15557770001', direction: 'outbound-api', status: 'completed',
  number: '+14155550100', trunk_id: null, parent_call_sid: null, created_at: at, answered_at: '2026-11-24T10:15:05.431Z', ended_at: later,
  duration: 99, hangup_cause: 'normal', answered_by: null, recordings: [recording],
};
const queuedCall = { ...call, status: 'queued', answered_at: null, ended_at: null, duration: null, hangup_cause: null, recordings: [] };
const subscription = {
  sid: 'WH0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b', event_type: 'hangup', target_url: 'https://app.example.com/events',
  headers: { 'X-Team': 'support', Authorization: '••••1234' }, delivery_mode: 'async', timeout_ms: 5000, max_retries: 5,
  payload_template: null, status: 'active', created_at: at, updated_at: at,
};
const delivery = {
  sid: 'DL3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f', event_sid: 'EV9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d', event_type: 'hangup', status: 'delivered',
  attempt_count: 2, next_attempt_at: null, created_at: at, completed_at: later,
  attempts: [
    { attempt: 1, started_at: at, status_code: 503, latency_ms: 41, error: null },
    { attempt: 2, started_at: '2026-11-24T10:15:12.120Z', status_code: 200, latency_ms: 37, error: null },
  ],
};
const lead = {
  sid: 'LD7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b', status: 'accepted', phone: '+15557770001', campaign: 'spring-promo',
  attributes: { name: 'Jane Doe', source: 'landing-page' }, created_at: at,
  callback_sid: null,
};
const conference = {
  sid: 'CF0123456789abcdef0123456789abcdef', friendly_name: 'support-standup', status: 'in-progress', participant_count: 2,
  record: false, end_reason: null, date_created: at, date_updated: later,
};
const participant = {
  call_sid: 'CA1b7f5a780bdbf97e3b4bf11c78b1a7eb', conference_sid: conference.sid, status: 'in-progress', muted: false, hold: false,
  hold_url: null, coaching: false, call_sid_to_coach: null, start_conference_on_enter: true, end_conference_on_exit: false, answered_by: null,
  date_created: at, date_updated: later,
};

const queue = {
  sid: 'QU5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a', friendly_name: 'support', max_wait_seconds: 600, ring_timeout_seconds: 20, wrap_up_seconds: 30,
  max_no_answer: 3, wait_url: 'https://media.example.com/hold-music.mp3',
  machine_detection: 'detect_message_end', machine_action: 'retry', machine_message: null, size: 2, agents_available: 1, longest_wait_seconds: 48,
  date_created: at, date_updated: later,
};
const campaign = {
  name: 'spring-promo', speed_to_lead_queue_sid: 'QU5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a', caller_id: '+15550100002', date_created: at, date_updated: later,
};

const callback = {
  sid: 'CB3e5a7c9b1d0f2e4c6a8b0d2f4e6c8a1b', queue_sid: 'QU5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a', to: '+15550100003', from: '+15550100002',
  due_at: '2026-12-01T09:30:00.000Z', attributes: { name: 'Ada', plan: 'pro' }, status: 'scheduled', attempts: 0, call_sid: null, agent_sid: null,
  answered_by: null, last_error: null, lead_sid: null, date_created: at, date_updated: at,
};

const voiceSettings = {
  synthesizer: 'openai-compatible', builtin_voices: ['default', 'alice', 'woman', 'female', 'man', 'male', 'slt', 'rms', 'kal', 'awb'],
  voices: ['alloy', 'nova'], speech_url: 'https://api.openai.com/v1', speech_model: 'tts-1', speech_api_key_set: true, date_updated: '2026-11-29T03:00:00.000Z',
};
const speechSettings = {
  recognizer: 'openai-compatible', transcription_url: 'https://api.openai.com/v1', transcription_model: 'whisper-1',
  transcription_api_key_set: true, date_updated: at,
};

const disposition = {
  sid: 'DP5b0c3e1f9a7d4c2e8b6a0f1d3c5e7a9b', call_sid: 'CA1f0e2d3c4b5a69788796a5b4c3d2e1f0', disposition: 'sale', notes: 'Two seats, renews in May.',
  agent_sid: 'AG2c4e6a8b0d1f3e5c7a9b1d3f5e7c9a0b', date_created: at,
};

const agent = {
  sid: 'AG8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c', friendly_name: 'Sam Rivera', trunk_id: 7, queues: [queue.sid], status: 'available',
  break_reason: null, activity: 'idle', current_call_sid: null, date_created: at, date_updated: later,
};

/** "METHOD /path" (as in the OpenAPI document) → status → example body. */
export const RESPONSE_EXAMPLES: Record<string, Record<string, unknown>> = {
  'GET /api/partner/trunks': { 200: { data: [trunk] } },
  'POST /api/partner/trunks': { 201: { ...trunkWithConnection, status: 'pending' } },
  'GET /api/partner/trunks/{id}': { 200: trunkWithConnection },
  'PUT /api/partner/trunks/{id}': { 200: trunkWithConnection },
  'PATCH /api/partner/trunks/{id}': { 200: { ...trunkWithConnection, label: 'Front desk' } },
  'DELETE /api/partner/trunks/{id}': { 200: { status: 'revoked' } },
  'GET /api/partner/trunks/{id}/connection': {
    200: {
      wss_url: 'wss://sip.example.com:8443/', sip_domain: 'sip.example.com', username: 'tk-ykz4x87t69pb', password: '05fWhc9uZ_mnaEjuFt_6YVflPc6J-C7m',
      secret_available: true,
      ice_servers: [{ urls: ['stun:turn.example.com:3478', 'turn:turn.example.com:3478?transport=udp', 'turn:turn.example.com:3478?transport=tcp', 'turns:turn.example.com:5349?transport=tcp'], username: '1795600000:tk-ykz4x87t69pb', credential: 'n5GkG0wq2b7mQ1xYzA3cV9uE4rT=' }],
    },
  },
  'POST /api/calls': { 201: queuedCall },
  'GET /api/calls': { 200: { data: [call], next_page_token: 'eyJjIjoiMjAyNi0xMS0yNFQxMDoxNTowMi4xMThaIn0' } },
  'GET /api/calls/{callSid}': { 200: call },
  'POST /api/calls/{callSid}': { 200: { ...call, duration: 41, ended_at: '2026-11-24T10:15:46.502Z', hangup_cause: 'api-hangup', recordings: [] } },
  'GET /api/calls/{callSid}/recordings': { 200: { data: [recording] } },
  'POST /api/calls/{callSid}/recordings': { 201: { ...recording, status: 'in-progress', duration: null, completed_at: null } },
  'POST /api/calls/{callSid}/recordings/{recordingSid}': { 200: { ...recording, status: 'paused', duration: null, completed_at: null } },
  'GET /api/recordings/{recordingSid}': { 200: recording },
  'POST /api/recordings/{recordingSid}/transcription': { 202: { ...recording, status: 'completed', transcription: { status: 'in-progress', text: null, error: null } } },
  'POST /v1/webhooks': { 201: { ...subscription, secret: 'whsec_4f1d8a2b9c7e6f5a3b2c1d0e9f8a7b6c' } },
  'GET /v1/webhooks': { 200: { data: [{ sid: subscription.sid, event_type: 'hangup', target_url: subscription.target_url, status: 'active' }], has_more: false, next_cursor: null } },
  'GET /v1/webhooks/{sid}': { 200: subscription },
  'POST /v1/webhooks/{sid}': { 200: { ...subscription, status: 'paused', updated_at: later } },
  'GET /v1/webhooks/{sid}/deliveries': { 200: { data: [delivery], has_more: false, next_cursor: null } },
  'GET /v1/leads/{sid}': { 200: lead },
  'POST /v1/lead-injections': { 202: { ...lead, callback_sid: 'CB3e5a7c9b1d0f2e4c6a8b0d2f4e6c8a1b' } },
  'POST /v1/lead-campaigns/{name}': { 200: campaign },
  'GET /v1/lead-campaigns': { 200: { data: [campaign], has_more: false, next_cursor: null } },
  'GET /v1/lead-campaigns/{name}': { 200: campaign },
  'GET /v1/conferences': { 200: { conferences: [conference], meta: { page_size: 50, next_cursor: null } } },
  'GET /v1/conferences/{sid}': { 200: conference },
  'POST /v1/conferences/{sid}': { 200: { ...conference, status: 'completed', participant_count: 0, end_reason: 'conference-ended-via-api' } },
  'GET /v1/conferences/{sid}/participants': { 200: { participants: [participant] } },
  'POST /v1/conferences/{sid}/participants': { 201: { ...participant, status: 'connecting' } },
  'POST /v1/conferences/{sid}/participants/{callSid}': { 200: { ...participant, muted: true } },
  'POST /v1/queues': { 201: { ...queue, size: 0, agents_available: 0, longest_wait_seconds: 0, date_updated: at } },
  'GET /v1/queues': { 200: { data: [queue], has_more: false, next_cursor: null } },
  'GET /v1/queues/{sid}': { 200: queue },
  'POST /v1/queues/{sid}': { 200: { ...queue, ring_timeout_seconds: 15 } },
  'GET /v1/queues/{sid}/members': {
    200: { data: [{ call_sid: 'CA1b7f5a780bdbf97e3b4bf11c78b1a7eb', position: 1, wait_seconds: 48 }, { call_sid: 'CA2c8e6b891cece08f4c5cf22d89c2b8fc', position: 2, wait_seconds: 7 }], has_more: false, next_cursor: null },
  },
  'POST /v1/agents': { 201: { ...agent, status: 'offline', date_updated: at } },
  'GET /v1/agents': { 200: { data: [agent], has_more: false, next_cursor: null } },
  'GET /v1/agents/{sid}': { 200: agent },
  'POST /v1/agents/{sid}': { 200: { ...agent, status: 'break', break_reason: 'lunch' } },
  'POST /v1/dispositions': { 201: disposition },
  'POST /v1/agents/{sid}/monitor': {
    201: { call_sid: 'CA9a8b7c6d5e4f30211203f4e5d6c7b8a9', agent_sid: agent.sid, monitored_call_sid: disposition.call_sid, mode: 'whisper', to: 'client:supervisor-1', status: 'queued' },
  },
  'POST /v1/callbacks': { 201: callback },
  'GET /v1/callbacks': { 200: { data: [callback], has_more: false, next_cursor: null } },
  'GET /v1/callbacks/{sid}': { 200: { ...callback, status: 'completed', attempts: 1, call_sid: 'CA7e6d5c4b3a2918f0e1d2c3b4a5968778', agent_sid: agent.sid } },
  'DELETE /v1/callbacks/{sid}': { 200: { ...callback, status: 'canceled' } },
  'GET /v1/dispositions': { 200: { data: [disposition], has_more: false, next_cursor: null } },
  'GET /v1/speech-settings': { 200: speechSettings },
  'POST /v1/speech-settings': { 200: speechSettings },
  'GET /v1/voice-settings': { 200: voiceSettings },
  'POST /v1/voice-settings': { 200: voiceSettings },
  'DELETE /v1/voice-settings': { 200: { ...voiceSettings, synthesizer: 'flite', voices: [], speech_url: null, speech_model: null, speech_api_key_set: false, date_updated: null } },
  'DELETE /v1/speech-settings': { 200: { recognizer: 'pocketsphinx', transcription_url: null, transcription_model: null, transcription_api_key_set: false, date_updated: null } },
};

/** The API's areas, in the order /docs lists them. */
export const TAGS = [
  { name: 'Trunks (live)', description: 'SIP trunks, PBXs and WSS seats of an account: credentials, webhooks, caller IDs, the connection a softphone needs.' },
  { name: 'Calls (live)', description: 'Place calls that run markup, list and fetch them, newest first.' },
  { name: 'Recordings (live)', description: 'Start, pause, resume and stop recordings of live calls; fetch them as JSON or WAV.' },
  { name: 'Conferences (preview)', description: 'Rooms created by <Conference> markup: list, end or announce, manage participants (add, mute, hold, coach, remove).' },
  { name: 'Queues and agents (preview)', description: 'The ACD: queues callers wait in, the agents offered their calls (seat, queues, status and activity). docs/acd.md.' },
  { name: 'Webhook subscriptions (preview)', description: 'Signed lifecycle events delivered to your endpoints, with their delivery log.' },
  { name: 'Lead injection (preview)', description: "Leads posted by your web forms, authenticated with the organisation's injection token." },
  { name: 'Speech (preview)', description: "Which recognizer hears the account's speech gathers (its OpenAI-compatible transcription endpoint, or the offline one), and which voices <Say> may use (the built-in ones, and those of its OpenAI-compatible speech endpoint). docs/speech.md." },
];
