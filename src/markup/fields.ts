/**
 * One reader for both dialects: an XML element's attributes (all strings) and a JSON verb
 * object's fields (typed values) go through the same calls, so each verb states its
 * attributes, defaults and ranges exactly once.
 */
import type { IssueList, IssueLocation } from './errors.js';
import type { XmlElement } from './element.js';
import type { HttpMethod } from './types.js';

export type Dialect = 'xml' | 'json';

export interface StringOptions {
  required?: boolean;
  /** Whether '' is a meaningful value (e.g. finishOnKey="" disables the key). */
  allowEmpty?: boolean;
  max?: number;
  check?: (value: string) => boolean;
  /** Completes "must be …" in the error message. */
  expect?: string;
}

export class Fields {
  private readonly used = new Set<string>();
  private bodyUsed = false;

  constructor(
    readonly dialect: Dialect,
    /** How messages name the owner: `<Say>` or `say`. */
    readonly owner: string,
    private readonly values: ReadonlyMap<string, unknown>,
    readonly issues: IssueList,
    private readonly where: (name?: string) => IssueLocation,
    /** XML only: the element's text content. */
    private readonly body = '',
  ) {}

  private get noun(): string {
    return this.dialect === 'xml' ? 'attribute' : 'field';
  }

  at(name?: string): IssueLocation {
    return this.where(name);
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  /** Marks the name as known even when the caller reads it by other means. */
  take(name: string): unknown {
    this.used.add(name);
    return this.values.get(name);
  }

  invalid(name: string, expect: string, got: unknown): void {
    this.issues.add('invalid_attribute', `${this.owner} ${this.noun} "${name}" must be ${expect}, got ${show(got)}`, this.where(name));
  }

  missing(name: string, expect: string): void {
    this.issues.add('missing_attribute', `${this.owner} requires ${this.noun} "${name}" (${expect})`, this.where());
  }

  string(name: string, opts: StringOptions = {}): string | undefined {
    const raw = this.take(name);
    const expect = opts.expect ?? 'a string';
    if (raw === undefined) {
      if (opts.required) this.missing(name, expect);
      return undefined;
    }
    if (typeof raw !== 'string') {
      this.invalid(name, expect, raw);
      return undefined;
    }
    // Trimmed in both dialects so that the same value means the same thing in XML and JSON.
    const value = raw.trim();
    if (!this.acceptable(value, opts)) {
      this.invalid(name, expect, raw);
      return undefined;
    }
    return value;
  }

  /** The verb's main value: the element body in XML (`<Say>Hi</Say>`), a named field in JSON. */
  content(jsonName: string, opts: StringOptions): string {
    if (this.dialect === 'json') return this.string(jsonName, { ...opts, required: true }) ?? '';
    this.bodyUsed = true;
    const value = this.body.trim();
    const expect = opts.expect ?? 'text';
    if (value === '') {
      this.issues.add('missing_text', `${this.owner} requires text content (${expect})`, this.where());
    } else if (!this.acceptable(value, opts)) {
      this.issues.add('invalid_text', `${this.owner} text must be ${expect}, got ${show(value)}`, this.where());
    }
    return value;
  }

  int(name: string, min: number, max: number, fallback: number): number {
    return this.optionalInt(name, min, max) ?? fallback;
  }

  optionalInt(name: string, min: number, max: number): number | undefined {
    const raw = this.take(name);
    if (raw === undefined) return undefined;
    let value: number | undefined;
    if (this.dialect === 'json') {
      if (typeof raw === 'number' && Number.isSafeInteger(raw)) value = raw;
    } else if (typeof raw === 'string' && /^\d{1,9}$/.test(raw.trim())) {
      value = Number(raw.trim());
    }
    if (value === undefined || value < min || value > max) {
      this.invalid(name, `an integer from ${min} to ${max}`, raw);
      return undefined;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.take(name);
    if (raw === undefined) return fallback;
    if (this.dialect === 'json' && typeof raw === 'boolean') return raw;
    if (this.dialect === 'xml' && (raw === 'true' || raw === 'false')) return raw === 'true';
    this.invalid(name, this.dialect === 'xml' ? '"true" or "false"' : 'true or false', raw);
    return fallback;
  }

  oneOf<T extends string, F extends T | undefined = T>(name: string, allowed: readonly T[], fallback: F): T | F {
    const raw = this.take(name);
    if (raw === undefined) return fallback;
    // An enum with "true"/"false" among its values (Conference beep) takes real booleans in JSON.
    const value = typeof raw === 'string' ? raw.trim() : this.dialect === 'json' && typeof raw === 'boolean' ? String(raw) : raw;
    if ((allowed as readonly unknown[]).includes(value)) return value as T;
    this.invalid(name, `one of ${allowed.map((a) => `"${a}"`).join(', ')}`, raw);
    return fallback;
  }

  method(name = 'method'): HttpMethod {
    return this.oneOf(name, ['POST', 'GET'] as const, 'POST');
  }

  /** Reports whatever the verb did not ask for; call after reading every known name. */
  finish(): void {
    for (const name of this.values.keys()) {
      if (this.used.has(name)) continue;
      const near = [...this.used].find((known) => known.toLowerCase() === name.toLowerCase());
      const hint = near ? ` (did you mean "${near}"?)` : '';
      this.issues.add('unknown_attribute', `${this.owner} has no ${this.noun} ${show(name)}${hint}`, this.where(name));
    }
    if (this.dialect === 'xml' && !this.bodyUsed && this.body.trim() !== '') {
      this.issues.add('unexpected_text', `${this.owner} cannot contain text, got ${show(this.body.trim())}`, this.where());
    }
  }

  private acceptable(value: string, opts: StringOptions): boolean {
    if (value === '') return opts.allowEmpty === true;
    if (opts.max !== undefined && value.length > opts.max) return false;
    return !opts.check || opts.check(value);
  }
}

/** Quotes a value for a message without ever serialising a (possibly huge or deep) structure. */
export function show(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    const cut = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return JSON.stringify(cut);
  }
  return String(value);
}

export function xmlFields(el: XmlElement, issues: IssueList): Fields {
  const where = (name?: string): IssueLocation => (name !== undefined ? el.attrPos.get(name) : undefined) ?? el.pos ?? {};
  return new Fields('xml', `<${el.name}>`, el.attrs, issues, where, el.text);
}

export function jsonPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

/** `discriminator` (e.g. "verb") is consumed by the caller and so excluded from the fields. */
export function jsonFields(
  obj: Record<string, unknown>,
  path: string,
  owner: string,
  issues: IssueList,
  discriminator?: string,
): Fields {
  const values = new Map<string, unknown>();
  for (const key of Object.keys(obj)) {
    if (key !== discriminator) values.set(key, obj[key]);
  }
  const where = (name?: string): IssueLocation => ({ path: name === undefined ? path : jsonPath(path, name) });
  return new Fields('json', owner, values, issues, where);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
