// Public surface of the outbound-network layer; other modules should import from here.
export { createGuardedClient } from './guarded-client.js';
export type { GuardedClient, GuardedClientOptions, OutboundRequest, OutboundResponse, Resolver, ResolvedAddress } from './guarded-client.js';
export { OutboundError, TargetRefusedError, TargetTimeoutError, TargetUnreachableError, ResponseTooLargeError } from './errors.js';
export { checkTargetUrl, hostMatches } from './url-policy.js';
export { checkCustomerUrl, customerUrlProblem, type CustomerUrlRule } from './customer-url.js';
export { checkStreamUrl } from './stream-url.js';
export type { UrlCheck, UrlPolicyCode, UrlPolicyOptions } from './url-policy.js';
export { classifyIp, isPlainLoopback, parseCidr, cidrContains } from './ip-policy.js';
export type { Cidr, IpCategory, IpVerdict } from './ip-policy.js';
export { sign, verify, parseSignatureHeader, SIGNATURE_HEADER, DEFAULT_TOLERANCE_SECONDS } from './signature.js';
export type { ParsedSignature, VerifyResult } from './signature.js';
export { SipTargetPolicy } from './sip-policy.js';
export type { SipPolicyOptions, VettedSipTarget, SipVet, SipStaticCheck } from './sip-policy.js';
export { parseSipUri } from './sip-uri.js';
export type { SipUriParts, SipTransport } from './sip-uri.js';
