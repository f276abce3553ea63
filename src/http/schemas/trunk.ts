import { Type, type Static } from '@sinclair/typebox';
import { HttpUrl, Name, Nullable, SingleLine } from './common.js';
import { NAME_LIMITS } from '../../names/index.js';

export const CALLBACK_EVENTS = ['initiated', 'ringing', 'in-progress', 'completed'] as const;
const Method = Type.Union([Type.Literal('POST'), Type.Literal('GET')]);
const methodSchema = { type: 'string', enum: ['POST', 'GET'] } as const;

const settingProps = {
  label: Nullable(Name(NAME_LIMITS.trunkLabel, 'The trunk\'s label; null for none.')),
  client_ref: Nullable(Name(NAME_LIMITS.trunkReference, "Caller's own reference; null for none.")),
  sip_domain: Nullable(Type.String({ format: 'sip-host', description: 'Host name or IP address shown in connection details.' })),
  voice_webhook_url: Nullable(HttpUrl('https URL: each call arriving over the trunk is sent here; the XML returned is run.')),
  voice_webhook_method: Type.Unsafe<'POST' | 'GET'>({ ...methodSchema, description: 'POST (default) or GET.' }),
  voice_fallback_url: Nullable(HttpUrl('https URL asked, with error_url and error_reason, when the voice webhook or an action URL of the call does not answer, times out or answers 5xx.')),
  voice_fallback_method: Type.Unsafe<'POST' | 'GET'>({ ...methodSchema, description: 'POST (default) or GET.' }),
  voice_refer_url: Nullable(HttpUrl('https URL asked, with refer_transfer_target, when one side of a bridged call asks to transfer the other (SIP REFER); its document runs for the other side. null: such transfers are declined (603).')),
  voice_refer_method: Type.Unsafe<'POST' | 'GET'>({ ...methodSchema, description: 'POST (default) or GET.' }),
  cli_lookup_url: Nullable(HttpUrl('https URL asked which caller ID to use for a call from the trunk.')),
  cli_lookup_method: Type.Unsafe<'POST' | 'GET'>({ ...methodSchema, description: 'POST (default) or GET.' }),
  default_caller_id: Nullable(SingleLine(32, 'E.164 (+14155550100). Used when there is no lookup URL or the lookup fails.')),
  status_callback_url: Nullable(HttpUrl('https URL: target for status callbacks of calls on this trunk.')),
  status_callback_events: Type.String({
    format: 'callback-events',
    description: `Space-separated: ${CALLBACK_EVENTS.join(', ')}. Default "completed".`,
  }),
  hangup_url: Nullable(HttpUrl('https URL, stored only; the service sends no requests to it.')),
  dual_channel_recording: Type.Boolean({ description: 'Each side recorded on its own channel. Default false.' }),
  allowed_caller_ids: Nullable(Type.Array(SingleLine(32, 'An E.164 caller ID.'), { maxItems: 100 })),
};

export const TrunkUpdateBody = Type.Partial(Type.Object(settingProps), { $id: 'TrunkUpdate' });
export const TrunkCreateBody = Type.Partial(
  Type.Object({
    ...settingProps,
    transport: Type.Unsafe<'tcp' | 'tls' | 'udp' | 'wss'>({
      type: 'string', enum: ['tcp', 'tls', 'udp', 'wss'], description: 'tcp (default), tls, udp, wss. Cannot be changed later.',
    }),
  }),
  { $id: 'TrunkCreate' },
);
export type TrunkCreateInput = Static<typeof TrunkCreateBody>;
export type TrunkUpdateInput = Static<typeof TrunkUpdateBody>;

export const Connection = Type.Object({
  sip_domain: Type.String(),
  sip_port: Type.String(),
  transport: Type.String(),
  wss_url: Nullable(Type.String()),
  username: Type.String(),
  password: Nullable(Type.String()),
  secret_available: Type.Boolean(),
}, { $id: 'Connection' });

export const IceServer = Type.Object({
  urls: Type.Array(Type.String()),
  username: Type.Optional(Type.String()),
  credential: Type.Optional(Type.String()),
}, { $id: 'IceServer' });

const trunkProps = {
  id: Type.Integer(),
  status: Type.String({ enum: ['pending', 'active', 'suspended', 'revoked'] }),
  label: Nullable(Type.String()),
  client_ref: Nullable(Type.String()),
  endpoint_name: Type.String(),
  sip_domain: Nullable(Type.String()),
  transport: Type.String(),
  voice_webhook_url: Nullable(Type.String()),
  voice_webhook_method: Method,
  voice_fallback_url: Nullable(Type.String()),
  voice_fallback_method: Method,
  voice_refer_url: Nullable(Type.String()),
  voice_refer_method: Method,
  cli_lookup_url: Nullable(Type.String()),
  cli_lookup_method: Method,
  default_caller_id: Nullable(Type.String()),
  status_callback_url: Nullable(Type.String()),
  status_callback_events: Type.String(),
  status_callback_format: Nullable(Type.String()),
  hangup_url: Nullable(Type.String()),
  dual_channel_recording: Type.Boolean(),
  allowed_caller_ids: Nullable(Type.Array(Type.String())),
  created_at: Type.String({ format: 'date-time' }),
};

export const TrunkSummary = Type.Object(trunkProps, { $id: 'TrunkSummary' });
export const TrunkWithConnection = Type.Object({ ...trunkProps, connection: Connection }, { $id: 'Trunk' });
export const TrunkList = Type.Object({ data: Type.Array(TrunkSummary) });
export const TrunkConnectionResponse = Type.Object({
  wss_url: Nullable(Type.String()),
  sip_domain: Type.String(),
  username: Type.String(),
  password: Nullable(Type.String()),
  secret_available: Type.Boolean(),
  ice_servers: Type.Array(IceServer),
});
