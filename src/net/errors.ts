/**
 * Every failure of an outbound request to a customer URL. Callers switch on `code` (stable,
 * safe to store in delivery logs) rather than on messages.
 */
export class OutboundError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The target was refused by policy before any byte was sent to it. `rule` names the check that
 * fired (a url-policy code, `address_refused` at connect time, or `unresolvable`).
 */
export class TargetRefusedError extends OutboundError {
  constructor(
    readonly rule: string,
    readonly reason: string,
  ) {
    super(rule === 'unresolvable' ? 'unresolvable' : 'target_refused', reason);
  }
}

export class TargetTimeoutError extends OutboundError {
  constructor(readonly timeoutMs: number, options?: { cause?: unknown }) {
    super('target_timeout', `no complete response within ${timeoutMs} ms`, options);
  }
}

export class TargetUnreachableError extends OutboundError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('target_unreachable', message, options);
  }
}

export class ResponseTooLargeError extends OutboundError {
  constructor(readonly limitBytes: number) {
    super('response_too_large', `response body exceeds ${limitBytes} bytes`);
  }
}
