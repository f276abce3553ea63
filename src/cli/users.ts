import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { CliError, parseId, type CliContext, type Runner } from './context.js';
import { passwordProblem, UserError, UserService } from '../users/service.js';
import { systemClock } from '../clock.js';

function baseUrl(ctx: CliContext): string {
  return (ctx.config.publicBaseUrl ?? `http://${ctx.config.host}:${ctx.config.port}`).replace(/\/+$/, '');
}

/** The password piped on stdin, without the trailing newline `echo` adds. */
function passwordFromStdin(): string {
  return readFileSync(0, 'utf8').replace(/\r?\n$/, '');
}

function service(ctx: CliContext): UserService {
  return new UserService(ctx.store.users, systemClock());
}

async function guarded<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UserError) throw new CliError(err.message);
    throw err;
  }
}

export function userCommands(program: Command, run: Runner): void {
  const user = program.command('user').description('dashboard users (account holders)');

  user.command('create')
    .description('create a dashboard user; prints a one-time link (24 h) to set the password')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--email <email>', 'sign-in email')
    .option('--password-stdin', 'set the password from standard input instead of printing a link', false)
    .action(run(async (ctx, opts: { account: string; email: string; passwordStdin: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      if (!(await ctx.store.accounts.get(accountId))) throw new CliError(`no account ${accountId}`);
      const users = service(ctx);
      const password = opts.passwordStdin ? passwordFromStdin() : null;
      // Checked before the user exists, so a rejected password leaves nothing half-created behind.
      const problem = password === null ? null : passwordProblem(password);
      if (problem) throw new CliError(`password: ${problem}`);
      const { user: created, setPasswordToken } = await guarded(() => users.create(accountId, opts.email));
      if (password !== null) {
        await guarded(() => users.setPassword(created.id, password));
        ctx.out({ id: created.id, account: accountId, email: created.email }, `created user ${created.email} for account ${accountId}`);
        return;
      }
      const link = `${baseUrl(ctx)}/dashboard/set-password?token=${setPasswordToken}`;
      ctx.out({ id: created.id, account: accountId, email: created.email, set_password_url: link },
        [`created user ${created.email} for account ${accountId}`, `set the password within 24 hours (the link works once):`, link]);
    }));

  user.command('reset <email>')
    .description('print a new one-time password link for an existing user')
    .action(run(async (ctx, email: string) => {
      const found = await ctx.store.users.getByEmail(email);
      if (!found) throw new CliError(`no user ${email}`);
      const link = `${baseUrl(ctx)}/dashboard/set-password?token=${await service(ctx).issueSetPasswordToken(found.id)}`;
      ctx.out({ id: found.id, email: found.email, set_password_url: link }, [`set the password within 24 hours:`, link]);
    }));

  user.command('list')
    .requiredOption('--account <id>', 'account id')
    .action(run(async (ctx, opts: { account: string }) => {
      const rows = (await ctx.store.users.listForAccount(parseId(opts.account, '--account')))
        .map((u) => ({ id: u.id, email: u.email, password_set: u.passwordHash !== null, created_at: u.createdAt }));
      ctx.out(rows, rows.map((u) => `${u.id}\t${u.email}\t${u.password_set ? 'password set' : 'awaiting password'}`));
    }));
}
