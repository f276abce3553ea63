// The CLI's way to the running server's operator routes: the token the server wrote into the data dir, the
// server's address from the same configuration (or --url), and one clear line when either is missing.
import { CliError, type CliContext } from './context.js';
import { describeError } from './errors.js';
import { operatorToken } from '../operator-token.js';

export async function operatorRequest(ctx: CliContext, urlPath: string, init: { method?: string; body?: unknown; accept?: string }, url?: string): Promise<Response> {
  const token = operatorToken(ctx.config.dataDir, false);
  if (!token) throw new CliError(`no operator token in ${ctx.config.dataDir}: start the server with the same RINGBASE_DATA_DIR first`);
  const base = url ?? `http://${ctx.config.host}:${ctx.config.port}`;
  let res: Response;
  try {
    res = await fetch(`${base}${urlPath}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, accept: init.accept ?? 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  } catch (err) {
    throw new CliError(`cannot reach the server at ${base}: ${describeError(err)}`);
  }
  if (!res.ok) {
    const text = await res.text();
    let said = text;
    try {
      const body = JSON.parse(text) as { error?: string | { message?: string }; message?: string };
      said = (typeof body.error === 'object' ? body.error.message : body.error) ?? body.message ?? text;
    } catch { /* not JSON: said as it came */ }
    throw new CliError(`server answered ${res.status}: ${said}`);
  }
  return res;
}
