import { html, type Html } from './html.js';
import { inWords } from './messages.js';

export type FieldErrors = Record<string, string[]>;
export type FormValues = Record<string, string>;

interface FieldOpts {
  hint?: string;
  /** Further error keys shown at this field, matched exactly (its own name also covers keys below it: `a` covers `a.0`). */
  errorKeys?: string[];
  type?: string;
  placeholder?: string;
  autocomplete?: string;
  inputmode?: string;
  required?: boolean;
  /** For fields laid out in a table row, where the row already names them. */
  hiddenLabel?: boolean;
}

// Ids must stay distinct for IVR keys * and #, and readable in tests: "ivr.keys.*.action" → "ivr-keys-star-action".
const idPart = (name: string) => name.replace(/\./g, '-').replace(/\*/g, 'star').replace(/#/g, 'hash').replace(/[^A-Za-z0-9_-]/g, '_');
export const fieldId = (name: string) => `f-${idPart(name)}`;
export const errorId = (name: string) => `e-${idPart(name)}`;

const covers = (key: string, errorKey: string) => errorKey === key || errorKey.startsWith(`${key}.`);

/**
 * Renders inputs with their validation messages right beside them. Messages no field claimed are kept for
 * `leftover()`, so an error can never be silently dropped because no input matched its key.
 */
export class FormRender {
  /** Error key → the field showing it and that field's label. */
  readonly #shown = new Map<string, { name: string; label: string }>();

  readonly errors: FieldErrors;

  constructor(readonly values: FormValues, errors: FieldErrors = {}) {
    this.errors = Object.fromEntries(Object.entries(errors).map(([key, messages]) => [key, messages.map((m) => inWords(key, m))]));
  }

  get hasErrors(): boolean { return Object.keys(this.errors).length > 0; }

  #claim(name: string, label: string, extra: string[] = []): string[] {
    const out: string[] = [];
    for (const [errorKey, messages] of Object.entries(this.errors)) {
      if (covers(name, errorKey) || extra.includes(errorKey)) { this.#shown.set(errorKey, { name, label }); out.push(...messages); }
    }
    return out;
  }

  #wrap(name: string, label: string, control: (attrs: Html) => Html, opts: FieldOpts, inline = false): Html {
    const messages = this.#claim(name, label, opts.errorKeys);
    const id = fieldId(name);
    const described = [opts.hint ? `h-${id}` : '', messages.length ? errorId(name) : ''].filter(Boolean).join(' ');
    const attrs = html`id="${id}" name="${name}"${described ? html` aria-describedby="${described}"` : ''}${messages.length ? html` aria-invalid="true"` : ''}${opts.required ? html` required` : ''}`;
    const labelEl = html`<label for="${id}"${opts.hiddenLabel ? html` class="visually-hidden"` : ''}>${label}</label>`;
    return html`<div class="field${inline ? ' field-inline' : ''}${messages.length ? ' has-error' : ''}">
      ${inline ? '' : labelEl}${control(attrs)}${inline ? labelEl : ''}
      ${opts.hint ? html`<p class="hint" id="h-${id}">${opts.hint}</p>` : ''}
      ${messages.length ? html`<p class="field-error" id="${errorId(name)}">${messages.join(' ')}</p>` : ''}
    </div>`;
  }

  text(name: string, label: string, opts: FieldOpts = {}): Html {
    return this.#wrap(name, label, (attrs) => html`<input ${attrs} type="${opts.type ?? 'text'}" value="${this.values[name] ?? ''}"${
      opts.placeholder ? html` placeholder="${opts.placeholder}"` : ''}${opts.autocomplete ? html` autocomplete="${opts.autocomplete}"` : ''}${
      opts.inputmode ? html` inputmode="${opts.inputmode}"` : ''}>`, opts);
  }

  textarea(name: string, label: string, opts: FieldOpts & { rows?: number } = {}): Html {
    return this.#wrap(name, label, (attrs) => html`<textarea ${attrs} rows="${opts.rows ?? 3}">${this.values[name] ?? ''}</textarea>`, opts);
  }

  select(name: string, label: string, options: ReadonlyArray<readonly [string, string]>, opts: FieldOpts = {}): Html {
    const current = this.values[name] ?? '';
    return this.#wrap(name, label, (attrs) => html`<select ${attrs}>${options.map(([value, text]) =>
      html`<option value="${value}"${value === current ? html` selected` : ''}>${text}</option>`)}</select>`, opts);
  }

  checkbox(name: string, label: string, opts: FieldOpts = {}): Html {
    return this.#wrap(name, label, (attrs) => html`<input ${attrs} type="checkbox" value="on"${this.values[name] === 'on' ? html` checked` : ''}>`, opts, true);
  }

  /** Messages not shown beside any field (rendered in the summary instead); call after rendering the fields. */
  leftover(): string[] {
    // Each message is a whole sentence: shown alone, it needs no field name (and never an API one).
    return Object.entries(this.errors).filter(([k]) => !this.#shown.has(k)).flatMap(([, m]) => m);
  }

  /** The list at the top of a failed form: a count, links to each field, and anything without a field. */
  summary(): Html {
    if (!this.hasErrors) return html``;
    const rest = this.leftover();
    return html`<div class="error-summary" role="alert" tabindex="-1" id="error-summary">
      <h2>Please correct the highlighted fields</h2>
      <ul>${[...this.#shown].map(([k, f]) => html`<li><a href="#${fieldId(f.name)}">${f.label}: ${this.errors[k]!.join(' ')}</a></li>`)}${rest.map((m) => html`<li>${m}</li>`)}</ul>
    </div>`;
  }
}

/** The hidden CSRF field every form posts back. */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;
