// <Refer>: a blind transfer asked of the caller's side (a trunk, PBX or seat) with SIP REFER, Twilio's form:
// `<Refer action="/done"><Sip>sip:alice@pbx.example.com</Sip></Refer>`; JSON `{"verb": "refer", "sip": "sip:…"}`.
import type { ReferVerb } from '../types.js';
import { EXPECT, isSipUri, isUrlReference } from '../values.js';
import { compact, readXmlLeaf, refuseChild, type VerbDef } from './define.js';
import { xmlFields, type Fields } from '../fields.js';

const SIP_URI = { check: isSipUri, expect: EXPECT.sipUri };

function attributes(f: Fields): Omit<ReferVerb, 'target'> {
  return compact({ verb: 'refer' as const, action: f.string('action', { check: isUrlReference, expect: EXPECT.urlRef }), method: f.method() });
}

export const refer: VerbDef = {
  xmlName: 'Refer',
  jsonName: 'refer',
  fromXml(el, cx) {
    const f = xmlFields(el, cx.issues);
    const verb = attributes(f);
    f.finish();
    const targets: string[] = [];
    for (const child of el.children) {
      if (child.name === 'Sip') targets.push(readXmlLeaf(child, cx.issues, (g) => g.content('sip', SIP_URI)));
      else refuseChild(el, child, cx.issues, 'may only contain one <Sip>');
    }
    if (targets.length !== 1) cx.issues.add('missing_target', `<Refer> needs exactly one <Sip>, got ${targets.length}`, el.pos ?? {});
    return { ...verb, target: targets[0] ?? '' };
  },
  fromJson(f) {
    const verb = { ...attributes(f), target: f.string('sip', { ...SIP_URI, required: true }) ?? '' };
    f.finish();
    return verb;
  },
};
