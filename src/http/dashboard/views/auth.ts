import type { Viewer } from '../context.js';
import { html, type Html } from '../html.js';
import { csrfField, FormRender } from '../forms.js';
import { page } from '../layout.js';
import { PASSWORD_MIN } from '../../../users/service.js';

export function loginView(opts: { csrf: string; form: FormRender; problem?: string; next?: string; notice?: string }): Html {
  const f = opts.form;
  const fields = html`${f.text('email', 'Email', { type: 'email', autocomplete: 'username', required: true })}
    ${f.text('password', 'Password', { type: 'password', autocomplete: 'current-password', required: true })}`;
  return page({ title: 'Sign in', viewer: null, notice: opts.notice }, html`
    ${opts.problem ? html`<p class="field-error" role="alert" id="login-error">${opts.problem}</p>` : ''}
    <form method="post" action="/dashboard/login" class="narrow">${csrfField(opts.csrf)}
      ${opts.next ? html`<input type="hidden" name="next" value="${opts.next}">` : ''}
      ${fields}
      <div class="actions"><button type="submit">Sign in</button></div>
    </form>
    <p class="hint">Accounts are created by the service team, who send you a link to set your password.</p>`);
}

export function setPasswordView(opts: { csrf: string; token: string; form: FormRender; expired?: boolean }): Html {
  if (opts.expired) {
    return page({ title: 'Set your password', viewer: null }, html`<p class="field-error" role="alert">This link is invalid, already used or
      expired (links last 24 hours). Ask the service team for a new one.</p>`);
  }
  const f = opts.form;
  const fields = html`${f.text('password', 'New password', { type: 'password', autocomplete: 'new-password', required: true, hint: `At least ${PASSWORD_MIN} characters.` })}
    ${f.text('confirm', 'Repeat the password', { type: 'password', autocomplete: 'new-password', required: true })}`;
  return page({ title: 'Set your password', viewer: null }, html`${f.summary()}
    <form method="post" action="/dashboard/set-password">${csrfField(opts.csrf)}
      <input type="hidden" name="token" value="${opts.token}">
      ${fields}
      <div class="actions"><button type="submit">Set password</button></div>
    </form>`);
}

/** An error page; for a signed-in viewer it keeps the navigation, so a wrong link is not a dead end. */
export function errorView(status: number, message: string, viewer: Viewer | null): Html {
  const title = status === 404 ? 'Not found' : status === 403 ? 'Refused' : status >= 500 ? 'Something went wrong' : 'Cannot do that';
  return page({ title, viewer }, html`<p>${message}</p>
    <p><a href="${viewer ? '/dashboard/numbers' : '/dashboard/login'}">Back to the dashboard</a></p>`);
}
