// Media streams: <Connect><Stream> (bidirectional: the verb lasts as long as the peer's socket), <Start><Stream>
// (a fork that listens while the call goes on) and <Stop><Stream name>. JSON: "stream", "start_stream" and
// "stop_stream" ("connect" already names dial in the JSON subset).
import type { XmlElement } from '../element.js';
import type { IssueList } from '../errors.js';
import { type Fields, isPlainObject, jsonPath, show, xmlFields } from '../fields.js';
import type { ConnectVerb, StartVerb, StopVerb, StreamNoun, StreamParameter, StreamTrack } from '../types.js';
import { EXPECT, isStreamName, isUrlReference, MAX_URL_LENGTH } from '../values.js';
import { compact, readXmlLeaf, refuseChild, type VerbDef } from './define.js';

export const MAX_STREAM_PARAMETERS = 32;
const MAX_PARAMETER_NAME = 64;
const MAX_PARAMETER_VALUE = 500;
const TRACKS = ['inbound_track', 'outbound_track', 'both_tracks'] as const;

/** A WebSocket URL as written; whether the platform may connect to it is the target policy's call (src/net/stream-url.ts). */
export function isStreamUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || !/^wss?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname.length > 0;
  } catch {
    return false;
  }
}

/** Stream names are matched by <Stop> and shown in callbacks: the platform's one name rule. */
const STREAM_NAME = { check: isStreamName, expect: EXPECT.streamName };

function readStream(f: Fields, tracks: readonly StreamTrack[], parameters: StreamParameter[]): StreamNoun {
  return compact({
    url: f.string('url', { required: true, check: isStreamUrl, expect: 'an absolute wss:// URL' }) ?? '',
    name: f.string('name', STREAM_NAME),
    track: f.oneOf('track', tracks, tracks[0]!),
    statusCallback: f.string('statusCallback', { check: isUrlReference, expect: EXPECT.urlRef }),
    statusCallbackMethod: f.method('statusCallbackMethod'),
    parameters,
  });
}

const PARAMETER_NAME = { required: true, max: MAX_PARAMETER_NAME, expect: `a parameter name (1-${MAX_PARAMETER_NAME} characters)` };
const PARAMETER_VALUE = { allowEmpty: true, max: MAX_PARAMETER_VALUE, expect: `a parameter value (at most ${MAX_PARAMETER_VALUE} characters)` };

function countParameters(count: number, issues: IssueList, where: { path?: string; line?: number; column?: number }): void {
  if (count > MAX_STREAM_PARAMETERS) issues.add('invalid_attribute', `a stream may have at most ${MAX_STREAM_PARAMETERS} parameters, got ${count}`, where);
}

function parametersFromXml(stream: XmlElement, issues: IssueList): StreamParameter[] {
  const out: StreamParameter[] = [];
  for (const child of stream.children) {
    if (child.name !== 'Parameter') {
      refuseChild(stream, child, issues, 'may only contain <Parameter>');
      continue;
    }
    out.push(readXmlLeaf(child, issues, (f) => ({ name: f.string('name', PARAMETER_NAME) ?? '', value: f.string('value', PARAMETER_VALUE) ?? '' })));
  }
  countParameters(out.length, issues, stream.pos ?? {});
  return out;
}

/** The one <Stream> inside <Connect>, <Start> or <Stop>. */
function onlyStream(el: XmlElement, issues: IssueList): XmlElement | undefined {
  const streams = el.children.filter((c) => c.name === 'Stream');
  for (const child of el.children) if (child.name !== 'Stream') refuseChild(el, child, issues, 'may only contain <Stream>');
  if (streams.length !== 1) issues.add(streams.length === 0 ? 'missing_target' : 'invalid_nesting', `<${el.name}> must contain exactly one <Stream>`, el.pos ?? {});
  return streams[0];
}

/** JSON "parameters": an object of string values. */
function parametersFromJson(f: Fields, path: string): StreamParameter[] {
  const raw = f.take('parameters');
  if (raw === undefined) return [];
  if (!isPlainObject(raw)) {
    f.invalid('parameters', 'an object of string values', raw);
    return [];
  }
  const out: StreamParameter[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const where = { path: jsonPath(jsonPath(path, 'parameters'), name) };
    if (name === '' || name.length > MAX_PARAMETER_NAME) f.issues.add('invalid_attribute', `a stream parameter name must be ${PARAMETER_NAME.expect}, got ${show(name)}`, where);
    else if (typeof value !== 'string' || value.length > MAX_PARAMETER_VALUE) f.issues.add('invalid_attribute', `stream parameter ${show(name)} must be ${PARAMETER_VALUE.expect}, got ${show(value)}`, where);
    else out.push({ name, value });
  }
  countParameters(out.length, f.issues, { path: jsonPath(path, 'parameters') });
  return out;
}

/** Twilio's bidirectional streams carry the caller's audio only. */
const CONNECT_TRACKS = ['inbound_track'] as const;

function connectOf(action: Fields, stream: StreamNoun): ConnectVerb {
  return compact({
    verb: 'connect' as const,
    action: action.string('action', { check: isUrlReference, expect: EXPECT.urlRef }),
    method: action.method(),
    stream,
  });
}

export const connect: VerbDef = {
  xmlName: 'Connect',
  jsonName: 'stream',
  fromXml(el, cx) {
    const f = xmlFields(el, cx.issues);
    const child = onlyStream(el, cx.issues);
    const stream = child ? readXmlStream(child, cx.issues, CONNECT_TRACKS) : placeholder();
    const verb = connectOf(f, stream);
    f.finish();
    return verb;
  },
  fromJson(f, _cx, path) {
    const stream = readStream(f, CONNECT_TRACKS, parametersFromJson(f, path));
    const verb = connectOf(f, stream);
    f.finish();
    return verb;
  },
};

export const start: VerbDef = {
  xmlName: 'Start',
  jsonName: 'start_stream',
  fromXml(el, cx) {
    const f = xmlFields(el, cx.issues);
    const child = onlyStream(el, cx.issues);
    f.finish();
    return { verb: 'start', stream: child ? readXmlStream(child, cx.issues, TRACKS) : placeholder() } satisfies StartVerb;
  },
  fromJson(f, _cx, path) {
    const verb: StartVerb = { verb: 'start', stream: readStream(f, TRACKS, parametersFromJson(f, path)) };
    f.finish();
    return verb;
  },
};

function readStopName(f: Fields): StopVerb {
  return { verb: 'stop', name: f.string('name', { ...STREAM_NAME, required: true }) ?? '' };
}

export const stop: VerbDef = {
  xmlName: 'Stop',
  jsonName: 'stop_stream',
  fromXml(el, cx) {
    const f = xmlFields(el, cx.issues);
    const child = onlyStream(el, cx.issues);
    f.finish();
    return child ? readXmlLeaf(child, cx.issues, readStopName) : { verb: 'stop', name: '' };
  },
  fromJson(f) {
    const verb = readStopName(f);
    f.finish();
    return verb;
  },
};

function readXmlStream(el: XmlElement, issues: IssueList, tracks: readonly StreamTrack[]): StreamNoun {
  const f = xmlFields(el, issues);
  const stream = readStream(f, tracks, parametersFromXml(el, issues));
  f.finish();
  return stream;
}

/** Stands in for a missing <Stream> (already reported) so the verb keeps its shape. */
function placeholder(): StreamNoun {
  return { url: '', track: 'inbound_track', statusCallbackMethod: 'POST', parameters: [] };
}
